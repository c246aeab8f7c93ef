#!/usr/bin/env node
// Checks a packaged .vsix: that it holds the manifest, the compiled client, the
// grammar and the language configuration, and that the manifest contributes the
// language, grammar, commands and settings the extension relies on.
// Usage: node tests/editors/check-vsix.js FILE.vsix GRAMMAR_SOURCE.json
// Prints "ok NAME" or "not ok NAME: why" per check; exits 1 when any failed.
'use strict';
const { execFileSync } = require('child_process');
const fs = require('fs');

const [vsix, grammarSource] = process.argv.slice(2);
if (!vsix || !grammarSource) {
  console.error('usage: check-vsix.js FILE.vsix GRAMMAR_SOURCE.json');
  process.exit(2);
}

let failed = 0;
function check(name, f) {
  try {
    f();
    console.log(`ok ${name}`);
  } catch (err) {
    failed++;
    console.log(`not ok ${name}: ${err.message}`);
  }
}
function assert(cond, msg) {
  if (!cond) throw new Error(msg);
}

const listing = execFileSync('unzip', ['-Z1', vsix], { encoding: 'utf8' }).split('\n').filter(Boolean);
const has = (p) => listing.includes(p);
const read = (p) => execFileSync('unzip', ['-p', vsix, p], { encoding: 'utf8', maxBuffer: 1 << 26 });

const manifest = JSON.parse(read('extension/package.json'));
const contributes = manifest.contributes || {};

check('manifest, README and LICENSE', () => {
  for (const f of ['extension.vsixmanifest', 'extension/package.json', 'extension/readme.md', 'extension/LICENSE.txt']) {
    assert(has(f), `missing ${f}`);
  }
});

check('compiled client (main) and its modules', () => {
  const main = 'extension/' + manifest.main.replace(/^\.\//, '') + (manifest.main.endsWith('.js') ? '' : '.js');
  assert(has(main), `missing ${main}`);
  for (const f of ['discovery.js', 'settings.js', 'minions.js']) assert(has(`extension/out/${f}`), `missing out/${f}`);
  assert(!listing.some((f) => f.startsWith('extension/src/') || f.endsWith('.ts')), 'TypeScript sources were packaged');
  assert(!listing.some((f) => f.startsWith('extension/out/test/')), 'unit tests were packaged');
});

check('vscode-languageclient is bundled as a dependency', () => {
  assert(has('extension/node_modules/vscode-languageclient/package.json'), 'missing node_modules/vscode-languageclient');
  assert(!listing.some((f) => f.startsWith('extension/node_modules/typescript/')), 'dev dependency typescript was packaged');
});

check('language sls for *.sls and top.sls with a language configuration', () => {
  const lang = (contributes.languages || []).find((l) => l.id === 'sls');
  assert(lang, 'no language sls');
  assert((lang.extensions || []).includes('.sls'), 'no .sls extension');
  assert((lang.filenames || []).includes('top.sls'), 'no top.sls filename');
  const conf = 'extension/' + lang.configuration.replace(/^\.\//, '');
  assert(has(conf), `missing ${conf}`);
  const c = JSON.parse(read(conf));
  assert(c.comments && c.comments.lineComment === '#', 'line comment is not #');
  const opens = (c.autoClosingPairs || []).map((p) => p.open);
  for (const o of ['{%', '{{', '{#']) assert(opens.includes(o), `no auto-closing ${o}`);
});

check('grammar source.sls, identical to grammars/sls.tmLanguage.json', () => {
  const g = (contributes.grammars || []).find((x) => x.language === 'sls');
  assert(g && g.scopeName === 'source.sls', 'no grammar source.sls for sls');
  const path = 'extension/' + g.path.replace(/^\.\//, '');
  assert(has(path), `missing ${path}`);
  const packaged = JSON.parse(read(path));
  const source = JSON.parse(fs.readFileSync(grammarSource, 'utf8'));
  assert(JSON.stringify(packaged) === JSON.stringify(source), 'packaged grammar differs from the source');
  assert(packaged.scopeName === 'source.sls', 'scopeName');
});

check('commands Select Minion, Show Top Explanation, Restart Server, Refresh Pillar, Show Impact, Show Upgrade Impact, Check Fleet', () => {
  const titles = Object.fromEntries((contributes.commands || []).map((c) => [c.command, `${c.category}: ${c.title}`]));
  const want = {
    'salt-analyzer.pickMinion': 'Salt: Select Minion',
    'salt-analyzer.showTopExplanation': 'Salt: Show Top Explanation',
    'salt-analyzer.restartServer': 'Salt: Restart Server',
    'salt-analyzer.reloadPillar': 'Salt: Refresh Pillar (re-read files and databases)',
    'salt-analyzer.showImpact': "Salt: Show Impact of Changes (every minion's highstate vs HEAD)",
    'salt-analyzer.showUpgradeImpact': 'Salt: Show Upgrade Impact (the changes on another Salt release vs HEAD)...',
    'salt-analyzer.runCheckFleet': "Salt: Check Fleet (every fleet minion's highstate)",
  };
  for (const [id, title] of Object.entries(want)) assert(titles[id] === title, `${id} is ${titles[id]}, want ${title}`);
  // The server's own command ids must stay free: vscode-languageclient registers
  // them itself when the server advertises them.
  for (const id of ['salt-analyzer.listMinions', 'salt-analyzer.selectMinion', 'salt-analyzer.topExplain', 'salt-analyzer.refreshPillar', 'salt-analyzer.impactReport', 'salt-analyzer.checkFleet']) {
    assert(!(id in titles), `${id} would clash with the server's command`);
  }
});

check('settings documented with descriptions and defaults', () => {
  const props = (contributes.configuration || {}).properties || {};
  // Plain strings, empty meaning unset: the Settings editor shows a text box only for those
  // (a ["string", "null"] setting is "Edit in settings.json" there).
  const want = {
    'salt-analyzer.server.path': '',
    'salt-analyzer.minion': '',
    'salt-analyzer.saltConfig': '',
    'salt-analyzer.impact.toSaltVersion': '',
    'salt-analyzer.trace.server': 'off',
  };
  for (const [key, def] of Object.entries(want)) {
    const p = props[key];
    assert(p, `missing ${key}`);
    assert(p.description || p.markdownDescription, `${key} has no description`);
    assert('default' in p && p.default === def, `${key} default is ${JSON.stringify(p.default)}, want ${JSON.stringify(def)}`);
  }
  assert(JSON.stringify(props['salt-analyzer.trace.server'].enum) === '["off","messages","verbose"]', 'trace.server enum');
  assert(JSON.stringify(props['salt-analyzer.impact.toSaltVersion'].enum) === '["","3006","3007","3008"]', 'impact.toSaltVersion enum');
});

check('activation, engine, repository and license fields', () => {
  assert((manifest.activationEvents || []).length > 0 || contributes.languages, 'no activation');
  assert(manifest.engines && manifest.engines.vscode, 'no engines.vscode');
  assert(manifest.repository && manifest.repository.url, 'no repository');
  assert(manifest.license, 'no license');
  assert(manifest.publisher, 'no publisher');
});

process.exit(failed === 0 ? 0 : 1);
