# a function no Salt release has
x: {{ salt['nope.fn']('a', b=1) }}
