{%- set ß = pillar.größe.ß %}
{%- macro grüß(wer='Welt') -%}hallo-{{ wer }}{%- endmacro %}
{%- for ключ in ['a', 'b'] %}
{{ ключ }}-{{ ß }}:
  test.nop:
    - name: {{ pillar.ℝ }} {{ pillar['💣'] }} {{ grüß() }} {{ grüß(wer=ключ) }}
{%- endfor %}
sorts:
  test.nop:
    - plain: {{ ['ß', 'z', 'ä', 'Äpfel', 'a', 'B', 'ss'] | sort }}
    - sensitive: {{ ['ß', 'z', 'Äpfel', 'a', 'B'] | sort(case_sensitive=true) }}
    - reverse: {{ ['b', 'A', 'c', 'a'] | sort(reverse=true) }}
    - numbers: {{ [3, 1.5, 2, -1] | sort }}
    - by: {{ pillar.leute | sort(attribute='name') | map(attribute='age') | list }}
    - by_two: {{ pillar.leute | sort(attribute='age,name') | map(attribute='name') | list }}
    - dotted: {{ pillar.leute | sort(attribute='adr.0') | map(attribute='name') | list }}
    - keys: {{ {'Zürich': 1, 'aarau': 2, 'Ölten': 3} | sort }}
