//! Finding the salt-analyzer binary (setting, then the binary bundled in a platform
//! VSIX, then PATH, then ~/.cargo/bin) and describing how to spawn it. No VS Code API here, so it is unit-tested with node.

import * as fs from 'fs';
import * as path from 'path';

/** Where the README says how to install the server. */
export const INSTALL_URL = 'https://github.com/salt-analyzer/salt-analyzer#install';

/** The binary's base name (without `.exe`). */
export const SERVER_BINARY = 'salt-analyzer';

/** What discovery may look at; passed in so that tests can fake every platform. */
export interface DiscoveryContext {
  platform: NodeJS.Platform;
  env: Readonly<Record<string, string | undefined>>;
  /** The first workspace folder, used for `${workspaceFolder}` and relative settings. */
  workspaceFolder?: string;
  /** The user's home directory, used for `~` and the cargo fallback. */
  home?: string;
  /** The extension's own directory: a platform VSIX carries the server under `server/`. */
  extensionPath?: string;
  /** True when `file` exists and may be executed. */
  isExecutable(file: string): boolean;
}

export type DiscoverySource = 'setting' | 'bundled' | 'PATH' | 'cargo';

export type Discovery =
  | { found: true; path: string; source: DiscoverySource }
  | { found: false; configured?: string; searched: string[] };

/** Where a platform-specific VSIX (`scripts/release.sh`) puts the server binary. */
export function bundledServerPath(extensionPath: string, platform: NodeJS.Platform): string {
  const p = pathApi(platform);
  return p.join(extensionPath, 'server', SERVER_BINARY + (platform === 'win32' ? '.exe' : ''));
}

/** The output channel's words for where the binary came from. */
export function describeSource(source: DiscoverySource): string {
  switch (source) {
    case 'setting':
      return 'from the setting salt-analyzer.server.path';
    case 'bundled':
      return 'bundled with this extension';
    case 'PATH':
      return 'found on PATH';
    case 'cargo':
      return 'found in ~/.cargo/bin';
  }
}

/**
 * Finds the server. A non-empty `salt-analyzer.server.path` wins and is never
 * silently replaced by another binary: when it points nowhere, that is the error.
 * Next comes the binary bundled in a platform VSIX, then PATH, then ~/.cargo/bin.
 * A bare command name in the setting (no directory part) is looked up on PATH.
 */
export function findServer(configuredPath: unknown, ctx: DiscoveryContext): Discovery {
  const p = pathApi(ctx.platform);
  const configured = typeof configuredPath === 'string' ? configuredPath.trim() : '';
  if (configured !== '') {
    const expanded = expandPath(configured, ctx);
    const isBareName = !/[\\/]/.test(configured) && !configured.startsWith('~') && !configured.includes('${');
    const candidates = isBareName
      ? searchPath(configured, ctx)
      : withExecutableSuffixes(p.resolve(ctx.workspaceFolder ?? p.sep, expanded), ctx);
    for (const candidate of candidates) {
      if (ctx.isExecutable(candidate)) return { found: true, path: candidate, source: 'setting' };
    }
    return { found: false, configured, searched: candidates };
  }

  if (ctx.extensionPath !== undefined) {
    const bundled = bundledServerPath(ctx.extensionPath, ctx.platform);
    if (ctx.isExecutable(bundled)) return { found: true, path: bundled, source: 'bundled' };
  }
  const onPath = searchPath(SERVER_BINARY, ctx);
  for (const candidate of onPath) {
    if (ctx.isExecutable(candidate)) return { found: true, path: candidate, source: 'PATH' };
  }
  // `cargo install` puts binaries here, and editors started from a desktop
  // launcher often have a PATH without it.
  const cargoHome = ctx.env.CARGO_HOME || (ctx.home ? p.join(ctx.home, '.cargo') : undefined);
  const cargo = cargoHome ? withExecutableSuffixes(p.join(cargoHome, 'bin', SERVER_BINARY), ctx) : [];
  for (const candidate of cargo) {
    if (ctx.isExecutable(candidate)) return { found: true, path: candidate, source: 'cargo' };
  }
  return { found: false, searched: [...onPath, ...cargo] };
}

/** The message shown when discovery failed (the caller adds the install button). */
export function notFoundMessage(d: Extract<Discovery, { found: false }>): string {
  if (d.configured !== undefined) {
    return `salt-analyzer: the setting salt-analyzer.server.path is "${d.configured}", but no executable is there.`;
  }
  return 'salt-analyzer: the language server binary was not found on PATH or in ~/.cargo/bin. Install it, or set salt-analyzer.server.path.';
}

/**
 * Expands `~`, `${userHome}`, `${workspaceFolder}` and `${env:NAME}` the way
 * VS Code users expect in path settings. Relative results stay relative.
 */
export function expandPath(value: string, ctx: Pick<DiscoveryContext, 'platform' | 'env' | 'workspaceFolder' | 'home'>): string {
  const p = pathApi(ctx.platform);
  let out = value.replace(/\$\{(workspaceFolder|userHome|env:([A-Za-z_][A-Za-z0-9_]*))\}/g, (whole, name: string, envName?: string) => {
    if (name === 'workspaceFolder') return ctx.workspaceFolder ?? whole;
    if (name === 'userHome') return ctx.home ?? whole;
    return (envName && lookupEnv(ctx.env, envName, ctx.platform)) ?? '';
  });
  if (ctx.home && (out === '~' || out.startsWith('~/') || (ctx.platform === 'win32' && out.startsWith('~\\')))) {
    out = p.join(ctx.home, out.slice(1));
  }
  return out;
}

/** Resolves a (possibly relative) path setting against the workspace folder. */
export function resolvePathSetting(value: string, ctx: Pick<DiscoveryContext, 'platform' | 'env' | 'workspaceFolder' | 'home'>): string {
  const p = pathApi(ctx.platform);
  const expanded = expandPath(value, ctx);
  if (p.isAbsolute(expanded) || ctx.workspaceFolder === undefined) return expanded;
  return p.resolve(ctx.workspaceFolder, expanded);
}

/**
 * How to spawn the server: no arguments and no `transport`, because
 * vscode-languageclient appends `--stdio` when a transport is given, and the
 * server speaks LSP on stdio when started with no arguments at all.
 */
export function serverExecutable(serverPath: string, cwd: string | undefined): {
  command: string;
  args: string[];
  options: { cwd?: string };
} {
  return { command: serverPath, args: [], options: cwd === undefined ? {} : { cwd } };
}

/** `fs`-backed check used by the extension. */
export function isExecutableFile(file: string, platform: NodeJS.Platform = process.platform): boolean {
  try {
    if (!fs.statSync(file).isFile()) return false;
    if (platform !== 'win32') fs.accessSync(file, fs.constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

function searchPath(name: string, ctx: DiscoveryContext): string[] {
  const p = pathApi(ctx.platform);
  const delimiter = ctx.platform === 'win32' ? ';' : ':';
  const dirs = (lookupEnv(ctx.env, 'PATH', ctx.platform) ?? '')
    .split(delimiter)
    .map((d) => d.trim().replace(/^"(.*)"$/, '$1'))
    .filter((d) => d !== '');
  return dirs.flatMap((dir) => withExecutableSuffixes(p.join(dir, name), ctx));
}

/** On Windows a command may be `name.exe`, `name.cmd`, ... (PATHEXT); elsewhere just `name`. */
function withExecutableSuffixes(file: string, ctx: Pick<DiscoveryContext, 'platform' | 'env'>): string[] {
  if (ctx.platform !== 'win32') return [file];
  const exts = (lookupEnv(ctx.env, 'PATHEXT', 'win32') ?? '.COM;.EXE;.BAT;.CMD')
    .split(';')
    .map((e) => e.trim().toLowerCase())
    .filter((e) => e !== '');
  if (exts.some((e) => file.toLowerCase().endsWith(e))) return [file];
  const ordered = ['.exe', ...exts.filter((e) => e !== '.exe')];
  return ordered.map((e) => file + e);
}

/** Environment variable names are case-insensitive on Windows (`Path` vs `PATH`). */
function lookupEnv(env: Readonly<Record<string, string | undefined>>, name: string, platform: NodeJS.Platform): string | undefined {
  if (platform !== 'win32') return env[name];
  const key = Object.keys(env).find((k) => k.toUpperCase() === name.toUpperCase());
  return key === undefined ? undefined : env[key];
}

function pathApi(platform: NodeJS.Platform): path.PlatformPath {
  return platform === 'win32' ? path.win32 : path.posix;
}
