vim:
  test.nop:
    - name: vim-ℝ
