//! Unit tests for the first-run guess: roots from where top.sls files are, the message, the starter file.

import { test } from 'node:test';
import * as assert from 'node:assert/strict';

import { firstRunMessage, guessRoots, starterWorkspaceFile } from '../firstrun';

test('salt/base with top.sls and a sibling salt/dev: two environments', () => {
  const roots = guessRoots({
    tops: ['salt/base/top.sls'],
    sls: ['salt/base/top.sls', 'salt/base/web/init.sls', 'salt/dev/tools/init.sls', 'README.sls'],
  });
  assert.deepEqual([...roots], [
    ['base', ['salt/base']],
    ['dev', ['salt/dev']],
  ]);
});

test('a top.sls at the workspace root: base is the root', () => {
  assert.deepEqual([...guessRoots({ tops: ['top.sls'], sls: ['top.sls', 'web/init.sls'] })], [['base', ['.']]]);
});

test('a top.sls in a directory not called base is still base', () => {
  assert.deepEqual([...guessRoots({ tops: ['states/top.sls'], sls: ['states/top.sls'] })], [['base', ['states']]]);
});

test('the message says what was found; the starter file carries the roots and a profile', () => {
  const facts = { tops: ['salt/base/top.sls'], sls: ['salt/base/top.sls', 'salt/dev/x/init.sls'], minions: ['laptop'] };
  const roots = guessRoots(facts);
  const msg = firstRunMessage(facts, roots);
  assert.match(msg, /no salt-analyzer\.yaml and no Salt config/);
  assert.match(msg, /top\.sls in salt\/base/);
  assert.match(msg, /`laptop`/);
  assert.match(msg, /no minion profiles/);
  assert.match(msg, /base: salt\/base; dev: salt\/dev/);
  assert.equal(
    starterWorkspaceFile(roots, 'laptop').split('\n').filter((l) => !l.startsWith('#')).join('\n'),
    [
      'file_roots:',
      '  base: [salt/base]',
      '  dev: [salt/dev]',
      'minions:                        # what each minion looks like: grains drive top-file targets and Jinja',
      '  laptop:',
      '    grains: {os: Ubuntu, os_family: Debian}',
      '    pillar: {}',
      'default_minion: laptop',
      '',
    ].join('\n'),
  );
});
