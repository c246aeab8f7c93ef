#!/usr/bin/env node
// Copies the grammar from grammars/ (the single source of truth, shared with the
// Neovim plugin and the tests) into this extension at build time, so that no copy
// lives in git. `npm run build` and `vsce package` (via vscode:prepublish) run it.
'use strict';
const fs = require('fs');
const path = require('path');

const root = path.resolve(__dirname, '..', '..', '..');
const files = [['grammars/sls.tmLanguage.json', 'syntaxes/sls.tmLanguage.json']];

for (const [from, to] of files) {
  const src = path.join(root, from);
  const dst = path.join(__dirname, '..', to);
  // Parse before copying: a broken grammar should fail the build, not the editor.
  JSON.parse(fs.readFileSync(src, 'utf8'));
  fs.mkdirSync(path.dirname(dst), { recursive: true });
  fs.copyFileSync(src, dst);
  console.log(`copied ${from} -> editors/vscode/${to}`);
}
