ctxsubdirfile:
  test.nop:
    - sls: "{{ sls }}"
    - slspath: "{{ slspath }}"
    - sls_path: "{{ sls_path }}"
    - slsdotpath: "{{ slsdotpath }}"
    - slscolonpath: "{{ slscolonpath }}"
    - tplfile: "{{ tplfile }}"
    - tpldir: "{{ tpldir }}"
    - tpldot: "{{ tpldot }}"
    - saltenv: {{ saltenv }}
    - tplpath_tail: {{ tplpath.split('/')[-2:] | join('/') }}
