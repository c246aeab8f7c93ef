base:
  'web*':
    - web
    - monitoring
  'db*':
    - db
