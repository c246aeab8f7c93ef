include:
  - .größe
"ünï_id":
  test.nop:
    - name: "ñame ✓"
    - msg: "日本語 💣"
