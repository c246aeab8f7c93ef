pkg_init:
  test.nop:
    - ctx: "{{ [sls, tplfile, tpldir, slspath, tpldot, sls_path] | join('|') }}"
