%% set names = ['a', 'b']
lines:
  test.nop:
%% for n in names
    - {{ n }}: {{ loop.index }}   ## trailing comment
%% endfor
    - url: "http://example.com/a#b"
