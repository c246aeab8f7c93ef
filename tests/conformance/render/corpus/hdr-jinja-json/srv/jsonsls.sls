#!jinja|json
{
  "json-state": {
    "test.nop": [
      {"name": "{{ grains['os'] }}"},
      {"roles": {{ grains['roles'] | json }}},
      {"port": {{ pillar['app']['port'] }}}
    ]
  },
  "a-second": {"test.nop": []}
}
