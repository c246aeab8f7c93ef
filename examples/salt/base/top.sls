base:
  '*':
    - common
  'web*':
    - web
  'db*':
    - db
  'G@roles:monitoring':
    - monitoring             # mistake: no environment has this SLS
dev:
  'web*':
    - tools
