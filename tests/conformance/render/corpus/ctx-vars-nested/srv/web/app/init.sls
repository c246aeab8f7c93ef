{% set tplroot = tpldir.split('/')[0] %}
ctxnested:
  test.nop:
    - sls: "{{ sls }}"
    - slspath: "{{ slspath }}"
    - sls_path: "{{ sls_path }}"
    - slsdotpath: "{{ slsdotpath }}"
    - slscolonpath: "{{ slscolonpath }}"
    - tplfile: "{{ tplfile }}"
    - tpldir: "{{ tpldir }}"
    - tpldot: "{{ tpldot }}"
    - tplroot: "{{ tplroot }}"
