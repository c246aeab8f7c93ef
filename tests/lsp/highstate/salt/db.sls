db_id: test.nop
