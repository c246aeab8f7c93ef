//! Unit tests for the first run: the server's discovery read, the message, the starter file.

import { test } from 'node:test';
import * as assert from 'node:assert/strict';

import { firstRunMessage, parseWorkspaceInfo, starterWorkspaceFile } from '../firstrun';

const LINE = 'no salt-analyzer.yaml: states from base: salt/base/, dev: salt/dev/, pillar from base: pillar/ (found salt/base/top.sls, pillar/top.sls); set file_roots/pillar_roots in salt-analyzer.yaml, or give -c DIR, to override';

test('the server\'s answer is read; a configured workspace has nothing to offer', () => {
  const info = parseWorkspaceInfo({ root: '/w', discovery: LINE, file_roots: { base: ['salt/base'], dev: ['salt/dev'] }, pillar_roots: { base: ['pillar'] } });
  assert.equal(info.discovery, LINE);
  assert.deepEqual([...info.fileRoots], [['base', ['salt/base']], ['dev', ['salt/dev']]]);
  assert.deepEqual([...info.pillarRoots], [['base', ['pillar']]]);
  assert.equal(parseWorkspaceInfo({ root: '/w', discovery: null, file_roots: null, pillar_roots: null }).discovery, null);
  assert.equal(parseWorkspaceInfo(undefined).discovery, null);
});

test('the message says what the server found; the starter file carries its roots and a profile', () => {
  const info = parseWorkspaceInfo({ discovery: LINE, file_roots: { base: ['salt/base'], dev: ['salt/dev'] }, pillar_roots: { base: ['pillar ß'] } });
  const msg = firstRunMessage(info, ['laptop']);
  assert.match(msg, /^salt-analyzer found no salt-analyzer\.yaml: /);
  assert.match(msg, /states from base: salt\/base\/, dev: salt\/dev\//);
  assert.match(msg, /`laptop`/);
  assert.match(msg, /no minion profiles/);
  assert.equal(
    starterWorkspaceFile(info.fileRoots, 'laptop', info.pillarRoots).split('\n').filter((l) => !l.startsWith('#')).join('\n'),
    [
      'file_roots:',
      '  base: [salt/base]',
      '  dev: [salt/dev]',
      'pillar_roots:',
      '  base: ["pillar ß"]',
      'minions:                        # what each minion looks like: grains drive top-file targets and Jinja',
      '  laptop:',
      '    grains: {os: Ubuntu, os_family: Debian}',
      '    pillar: {}',
      'default_minion: laptop',
      '',
    ].join('\n'),
  );
});
