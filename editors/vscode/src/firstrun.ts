//! First run in a workspace with no salt-analyzer.yaml and no Salt config: what the server
//! found there (`salt-analyzer.workspaceInfo`: its zero-configuration discovery, the same the
//! command line and `:checkhealth` report), and the starter salt-analyzer.yaml offered from
//! it. No VS Code API here, so it is unit-tested with node.

/** Environment name -> root directories (relative, `.` for the workspace root). */
export type Roots = Map<string, string[]>;

/** What `salt-analyzer.workspaceInfo` answers. */
export interface WorkspaceInfo {
  /** The one line saying what was found and how to override it; null when configured. */
  discovery: string | null;
  fileRoots: Roots;
  pillarRoots: Roots;
}

/** Reads the command's answer; anything unexpected reads as "configured" (nothing to offer). */
export function parseWorkspaceInfo(raw: unknown): WorkspaceInfo {
  const obj = (raw ?? {}) as Record<string, unknown>;
  const roots = (v: unknown): Roots => {
    const out: Roots = new Map();
    if (v !== null && typeof v === 'object') {
      for (const [env, dirs] of Object.entries(v as Record<string, unknown>)) {
        if (Array.isArray(dirs)) out.set(env, dirs.filter((d): d is string => typeof d === 'string'));
      }
    }
    return out;
  };
  return { discovery: typeof obj.discovery === 'string' ? obj.discovery : null, fileRoots: roots(obj.file_roots), pillarRoots: roots(obj.pillar_roots) };
}

/** The one notification: what the server found, and what the starter file would add. */
export function firstRunMessage(info: WorkspaceInfo, minions: string[]): string {
  const minion = minions.length === 1 ? `this machine (\`${minions[0]}\`)` : 'this machine';
  return (
    `salt-analyzer found ${info.discovery ?? 'no salt-analyzer.yaml'}. The only minion is ${minion}, with no minion profiles. ` +
    'Create a starter salt-analyzer.yaml with these roots and one minion profile?'
  );
}

/** The starter salt-analyzer.yaml: the guessed roots and one profile to fill in. */
export function starterWorkspaceFile(roots: Roots, minion: string | undefined, pillarRoots: Roots = new Map()): string {
  const id = minion && /^[A-Za-z0-9_.-]+$/.test(minion) ? minion : 'minion1';
  const lines = [
    '# salt-analyzer workspace file (see https://github.com/salt-analyzer/salt-analyzer#configuration).',
    '# Written by the VS Code extension from the files it found; adjust the roots and the profile.',
    '# salt_config: /etc/salt        # or read the roots and the minion from a Salt config dir',
    'file_roots:',
  ];
  const entries = roots.size === 0 ? new Map([['base', ['.']]]) : roots;
  for (const [env, dirs] of entries) lines.push(`  ${env}: [${dirs.map(yamlScalar).join(', ')}]`);
  if (pillarRoots.size > 0) {
    lines.push('pillar_roots:');
    for (const [env, dirs] of pillarRoots) lines.push(`  ${env}: [${dirs.map(yamlScalar).join(', ')}]`);
  }
  lines.push(
    'minions:                        # what each minion looks like: grains drive top-file targets and Jinja',
    `  ${id}:`,
    '    grains: {os: Ubuntu, os_family: Debian}',
    '    pillar: {}',
    `default_minion: ${id}`,
    '',
  );
  return lines.join('\n');
}

function yamlScalar(s: string): string {
  return /^[A-Za-z0-9_./-]+$/.test(s) ? s : JSON.stringify(s);
}
