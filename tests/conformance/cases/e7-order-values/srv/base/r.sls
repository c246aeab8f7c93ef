big:
  test.nop:
    - order: 10050
early:
  test.nop:
    - order: first
late:
  test.nop:
    - order: last
neg:
  test.nop:
    - order: -1
small:
  test.nop:
    - order: 5
plain:
  test.nop:
    - names:
      - p1
      - p2
