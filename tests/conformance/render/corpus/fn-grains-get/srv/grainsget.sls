grainsget:
  test.nop:
    - eth0: {{ salt['grains.get']('ip_interfaces:eth0') | first }}
    - eth0_index: {{ salt['grains.get']('ip_interfaces:eth0:1') }}
    - missing: {{ salt['grains.get']('ip_interfaces:eth9', ['none']) | json }}
    - missing_default: "{{ salt['grains.get']('nope') }}"
    - delim: {{ salt['grains.get']('locale_info/defaultlanguage', delimiter='/') }}
    - direct: {{ grains['locale_info']['defaultencoding'] }}
    - unicode_key: {{ salt['grains.get']('ℝeal') }}
    - via_attr: {{ salt.grains.get('os_family') }}
