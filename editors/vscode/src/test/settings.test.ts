//! Unit tests for the settings -> initializationOptions / configuration mapping.

import { test } from 'node:test';
import * as assert from 'node:assert/strict';

import { didChangeConfigurationParams, impactRelease, inlayHintSettings, toServerSettings, traceLevel } from '../settings';

const ctx = { platform: 'linux' as const, env: {}, workspaceFolder: '/ws', home: '/home/ada' };

test('defaults: nulls and trace off', () => {
  assert.deepEqual(toServerSettings({}, ctx), { minion: null, saltConfig: null, saltCall: null, impact: { toSaltVersion: null }, inlayHints: { values: true, conditions: true, loops: true, sets: true }, trace: { server: 'off' } });
  assert.deepEqual(toServerSettings({ minion: null, saltConfig: null, trace: { server: 'off' } }, ctx), {
    minion: null,
    saltConfig: null,
    saltCall: null,
    impact: { toSaltVersion: null },
    inlayHints: { values: true, conditions: true, loops: true, sets: true },
    trace: { server: 'off' },
  });
});

test('values are passed through, trimmed; blank means null', () => {
  assert.deepEqual(toServerSettings({ minion: ' web01 ', saltConfig: '/etc/salt', trace: { server: 'verbose' } }, ctx), {
    minion: 'web01',
    saltConfig: '/etc/salt',
    saltCall: null,
    impact: { toSaltVersion: null },
    inlayHints: { values: true, conditions: true, loops: true, sets: true },
    trace: { server: 'verbose' },
  });
  assert.equal(toServerSettings({ minion: '   ' }, ctx).minion, null);
  assert.equal(toServerSettings({ minion: 7 }, ctx).minion, null);
});

test('saltConfig is made absolute against the workspace folder, ~ expanded', () => {
  assert.equal(toServerSettings({ saltConfig: 'etc/salt' }, ctx).saltConfig, '/ws/etc/salt');
  assert.equal(toServerSettings({ saltConfig: '~/salt' }, ctx).saltConfig, '/home/ada/salt');
  assert.equal(toServerSettings({ saltConfig: '${workspaceFolder}/etc' }, ctx).saltConfig, '/ws/etc');
});

test('saltCall: a path made absolute, false to never ask Salt, else the one on PATH', () => {
  assert.equal(toServerSettings({ saltCall: '~/venv/bin/salt-call' }, ctx).saltCall, '/home/ada/venv/bin/salt-call');
  assert.equal(toServerSettings({ saltCall: false }, ctx).saltCall, false);
  assert.equal(toServerSettings({ saltCall: ' ' }, ctx).saltCall, null);
  assert.equal(toServerSettings({ saltCall: true }, ctx).saltCall, null);
});

test('trace level: only off, messages, verbose', () => {
  assert.equal(traceLevel({ server: 'messages' }), 'messages');
  assert.equal(traceLevel('verbose'), 'verbose');
  assert.equal(traceLevel({ server: 'loud' }), 'off');
  assert.equal(traceLevel(undefined), 'off');
  assert.equal(traceLevel(null), 'off');
});

test('server.path is not part of what the server receives', () => {
  const raw = { minion: 'a', saltConfig: null, trace: { server: 'off' }, server: { path: '/x' } };
  assert.deepEqual(Object.keys(toServerSettings(raw, ctx)).sort(), ['impact', 'inlayHints', 'minion', 'saltCall', 'saltConfig', 'trace']);
});

test('didChangeConfiguration carries the salt-analyzer section', () => {
  const s = toServerSettings({ minion: 'web01' }, ctx);
  assert.deepEqual(didChangeConfigurationParams(s), { settings: { 'salt-analyzer': s } });
});

test('impact.toSaltVersion: a supported release, else null', () => {
  assert.deepEqual(toServerSettings({ impact: { toSaltVersion: ' 3008 ' } }, ctx).impact, { toSaltVersion: '3008' });
  assert.equal(impactRelease({ toSaltVersion: '' }), null);
  assert.equal(impactRelease({ toSaltVersion: '2019.2' }), null);
  assert.equal(impactRelease({ toSaltVersion: 3006 }), null);
  assert.equal(impactRelease('3006'), null);
  assert.equal(impactRelease(undefined), null);
});

test('inlay hint kinds are on unless false', () => {
  assert.deepEqual(inlayHintSettings(undefined), { values: true, conditions: true, loops: true, sets: true });
  assert.deepEqual(inlayHintSettings({ values: false, loops: 'no', sets: false }), { values: false, conditions: true, loops: true, sets: false });
  assert.deepEqual(toServerSettings({ inlayHints: { conditions: false } }, ctx).inlayHints, { values: true, conditions: false, loops: true, sets: true });
});
