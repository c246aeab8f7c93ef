#!json
{"plain-json": {"pkg.installed": [{"name": "ß-ℝ-💣"}, {"pkgs": ["a", "b"]}, {"refresh": false}, {"n": null}, {"f": 1.5}]},
 "zz-first-key-order": {"test.nop": []}, "aa-second": {"test.nop": [{"x": {"k2": 1, "k1": 2}}]}}
