numbers:
  test.nop:
    - ints: {{ pillar['sizes'] | map('int') | list }}
    - int_default: {{ 'x' | int(-1) }}
    - int_base: {{ '0x1F' | int(0, 16) }}
    - int_float_str: {{ '3.9' | int }}
    - float: {{ '2.5' | float * 2 }}
    - float_default: {{ 'nan?' | float(0.5) }}
    - round: {{ 2.675 | round(2) }} {{ 2.5 | round }} {{ 7.3 | round(0, 'ceil') }} {{ 7.7 | round(method='floor') | int }}
    - abs: {{ -5 | abs }}
    - sum: {{ pillar['weights'] | sum }}
    - min_max: {{ [pillar['weights'] | min, pillar['weights'] | max] }}
    - half_mem: {{ (grains['mem_total'] / 2) | int }}
    - workers: {{ [grains['num_cpus'] * 2, 8] | min }}
    - size: {{ 1536000 | filesizeformat }} / {{ 1536000 | filesizeformat(true) }}
    - big: {{ 2 ** 70 }}
    - neg_div: {{ -7 // 2 }} {{ -7 % 3 }}
