db_users:
  test.nop:
    - require:
      - test: db_schema        # mistake: nothing declares db_schema

motd:                          # mistake: common.sls declares motd too
  test.nop

db_backup:
  test.nop:
    - name: backup
db_vacuum:
  test.nop:                    # mistake: a trailing colon with no arguments
