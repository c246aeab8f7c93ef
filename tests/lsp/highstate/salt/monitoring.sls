# Überwachung (ß)
agent_💣:
  test.nop:
    - name: collector
