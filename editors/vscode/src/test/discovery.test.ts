//! Unit tests for server discovery: settings, PATH, cargo fallback, Windows rules.

import { test } from 'node:test';
import * as assert from 'node:assert/strict';

import { bundledServerPath, DiscoveryContext, expandPath, findServer, notFoundMessage, resolvePathSetting, serverExecutable } from '../discovery';

function ctx(over: Partial<DiscoveryContext> & { files?: string[] } = {}): DiscoveryContext {
  const files = new Set(over.files ?? []);
  return {
    platform: over.platform ?? 'linux',
    env: over.env ?? { PATH: '/usr/local/bin:/usr/bin' },
    workspaceFolder: over.workspaceFolder ?? '/work/states',
    home: over.home ?? '/home/ada',
    extensionPath: over.extensionPath,
    isExecutable: over.isExecutable ?? ((f) => files.has(f)),
  };
}

test('finds the binary on PATH, first directory first', () => {
  const d = findServer(null, ctx({ files: ['/usr/bin/salt-analyzer', '/usr/local/bin/salt-analyzer'] }));
  assert.deepEqual(d, { found: true, path: '/usr/local/bin/salt-analyzer', source: 'PATH' });
});

test('an empty or blank setting means "look on PATH"', () => {
  for (const setting of [undefined, null, '', '   ', 42]) {
    const d = findServer(setting, ctx({ files: ['/usr/bin/salt-analyzer'] }));
    assert.deepEqual(d, { found: true, path: '/usr/bin/salt-analyzer', source: 'PATH' });
  }
});

test('falls back to ~/.cargo/bin, or $CARGO_HOME/bin', () => {
  assert.deepEqual(findServer('', ctx({ files: ['/home/ada/.cargo/bin/salt-analyzer'] })), {
    found: true,
    path: '/home/ada/.cargo/bin/salt-analyzer',
    source: 'cargo',
  });
  const env = { PATH: '/usr/bin', CARGO_HOME: '/opt/cargo' };
  assert.deepEqual(findServer('', ctx({ env, files: ['/opt/cargo/bin/salt-analyzer'] })), {
    found: true,
    path: '/opt/cargo/bin/salt-analyzer',
    source: 'cargo',
  });
});

test('the setting wins over PATH', () => {
  const d = findServer('/opt/sa/bin/salt-analyzer', ctx({ files: ['/opt/sa/bin/salt-analyzer', '/usr/bin/salt-analyzer'] }));
  assert.deepEqual(d, { found: true, path: '/opt/sa/bin/salt-analyzer', source: 'setting' });
});

test('a setting that points nowhere is an error, not a silent fallback to PATH', () => {
  const d = findServer('/nope/salt-analyzer', ctx({ files: ['/usr/bin/salt-analyzer'] }));
  assert.equal(d.found, false);
  if (d.found) return;
  assert.equal(d.configured, '/nope/salt-analyzer');
  assert.deepEqual(d.searched, ['/nope/salt-analyzer']);
  assert.match(notFoundMessage(d), /salt-analyzer\.server\.path/);
});

test('relative, ~ and ${workspaceFolder} settings are expanded', () => {
  const files = ['/work/states/target/debug/salt-analyzer', '/home/ada/bin/salt-analyzer'];
  assert.equal(findServer('target/debug/salt-analyzer', ctx({ files })).found, true);
  assert.deepEqual(findServer('${workspaceFolder}/target/debug/salt-analyzer', ctx({ files })), {
    found: true,
    path: '/work/states/target/debug/salt-analyzer',
    source: 'setting',
  });
  assert.deepEqual(findServer('~/bin/salt-analyzer', ctx({ files })), {
    found: true,
    path: '/home/ada/bin/salt-analyzer',
    source: 'setting',
  });
});

test('a bare command name in the setting is looked up on PATH', () => {
  const d = findServer('salt-analyzer-nightly', ctx({ files: ['/usr/bin/salt-analyzer-nightly'] }));
  assert.deepEqual(d, { found: true, path: '/usr/bin/salt-analyzer-nightly', source: 'setting' });
});

test('nothing found lists every place looked at', () => {
  const d = findServer(undefined, ctx());
  assert.equal(d.found, false);
  if (d.found) return;
  assert.equal(d.configured, undefined);
  assert.deepEqual(d.searched, ['/usr/local/bin/salt-analyzer', '/usr/bin/salt-analyzer', '/home/ada/.cargo/bin/salt-analyzer']);
  assert.match(notFoundMessage(d), /not found/);
});

test('Windows: Path is case-insensitive, ; separates, .exe is tried first', () => {
  const c = ctx({
    platform: 'win32',
    env: { Path: 'C:\\Windows;"C:\\Tools";', PATHEXT: '.COM;.EXE;.CMD' },
    home: 'C:\\Users\\ada',
    workspaceFolder: 'C:\\states',
    files: ['C:\\Tools\\salt-analyzer.exe'],
  });
  assert.deepEqual(findServer(null, c), { found: true, path: 'C:\\Tools\\salt-analyzer.exe', source: 'PATH' });
  const none = findServer(null, { ...c, isExecutable: () => false });
  assert.equal(none.found, false);
  if (!none.found) {
    assert.deepEqual(none.searched.slice(0, 3), [
      'C:\\Windows\\salt-analyzer.exe',
      'C:\\Windows\\salt-analyzer.com',
      'C:\\Windows\\salt-analyzer.cmd',
    ]);
    assert.ok(none.searched.includes('C:\\Users\\ada\\.cargo\\bin\\salt-analyzer.exe'));
  }
});

test('Windows: a configured path with or without .exe', () => {
  const c = ctx({ platform: 'win32', env: { PATH: '' }, workspaceFolder: 'C:\\states', files: ['D:\\sa\\salt-analyzer.exe'] });
  assert.equal(findServer('D:\\sa\\salt-analyzer.exe', c).found, true);
  assert.deepEqual(findServer('D:\\sa\\salt-analyzer', c), { found: true, path: 'D:\\sa\\salt-analyzer.exe', source: 'setting' });
});

test('expandPath and resolvePathSetting', () => {
  const c = { platform: 'linux' as const, env: { SALT: '/srv/salt' }, workspaceFolder: '/ws', home: '/home/ada' };
  assert.equal(expandPath('~', c), '/home/ada');
  assert.equal(expandPath('~/etc', c), '/home/ada/etc');
  assert.equal(expandPath('${userHome}/x', c), '/home/ada/x');
  assert.equal(expandPath('${env:SALT}/etc', c), '/srv/salt/etc');
  assert.equal(expandPath('${env:MISSING}etc', c), 'etc');
  assert.equal(expandPath('a~b', c), 'a~b');
  assert.equal(resolvePathSetting('etc/salt', c), '/ws/etc/salt');
  assert.equal(resolvePathSetting('/etc/salt', c), '/etc/salt');
  assert.equal(resolvePathSetting('etc/salt', { ...c, workspaceFolder: undefined }), 'etc/salt');
});

test('the server is spawned with no arguments and no transport (no --stdio)', () => {
  const exe = serverExecutable('/usr/bin/salt-analyzer', '/ws');
  assert.deepEqual(exe, { command: '/usr/bin/salt-analyzer', args: [], options: { cwd: '/ws' } });
  assert.equal('transport' in exe, false);
  assert.deepEqual(serverExecutable('/x', undefined).options, {});
});

test('a platform VSIX: the bundled binary wins over PATH, the setting wins over it', () => {
  const ext = '/home/ada/.vscode/extensions/salt-analyzer.salt-analyzer-0.1.0-linux-x64';
  const bundled = `${ext}/server/salt-analyzer`;
  const files = [bundled, '/usr/bin/salt-analyzer', '/opt/sa/salt-analyzer'];
  assert.equal(bundledServerPath(ext, 'linux'), bundled);
  assert.deepEqual(findServer(null, ctx({ extensionPath: ext, files })), { found: true, path: bundled, source: 'bundled' });
  assert.deepEqual(findServer('/opt/sa/salt-analyzer', ctx({ extensionPath: ext, files })), {
    found: true,
    path: '/opt/sa/salt-analyzer',
    source: 'setting',
  });
  // A universal VSIX has no server/ directory: PATH as before.
  assert.deepEqual(findServer(null, ctx({ extensionPath: '/ext', files })), { found: true, path: '/usr/bin/salt-analyzer', source: 'PATH' });
  assert.equal(bundledServerPath('C:\\ext', 'win32'), 'C:\\ext\\server\\salt-analyzer.exe');
});
