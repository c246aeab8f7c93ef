base:
  '*':
    - common
  'web*':
    - web
  'db*':
    - db
dev:
  'web*':
    - tools
