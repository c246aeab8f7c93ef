configget:
  test.nop:
    - first_found: {{ salt['config.get']('myorg:source') }}
    - grains_over_pillar: {{ salt['config.get']('tier') }}
    - pillar_only: {{ salt['config.get']('pillar_only_key') }}
    - missing: {{ salt['config.get']('nope:deep', 'dflt') }}
    - whole_opts: {{ salt['config.get']('myorg') | json }}
    - recurse: {{ salt['config.get']('myorg', merge='recurse') | json }}
    - overwrite: {{ salt['config.get']('myorg', merge='overwrite') | json }}
    - opts_id: {{ salt['config.get']('id') }}
    - option: {{ salt['config.option']('myorg:only_opts') }}
