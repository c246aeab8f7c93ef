//! First run in a workspace with no salt-analyzer.yaml and no Salt config: what the
//! server sees there (the workspace root as the one `base` root, this machine as the one
//! minion), what the tree looks like (where its top.sls files are), and the starter
//! salt-analyzer.yaml offered from that. No VS Code API here, so it is unit-tested with node.

import * as path from 'path';

/** What the extension found, as workspace-relative paths with `/` separators. */
export interface FirstRunFacts {
  /** Every `top.sls`, e.g. `salt/base/top.sls`. */
  tops: string[];
  /** Every `.sls` file (to find environments next to a `base` root). */
  sls: string[];
  /** The minion ids the server reports (with no profiles: this machine's id). */
  minions: string[];
}

/** Environment name -> root directories (relative, `.` for the workspace root). */
export type Roots = Map<string, string[]>;

/**
 * Guesses `file_roots` from the tree: each directory holding a `top.sls` is a root, named
 * after itself when that is an environment-like name, else `base` (the first) ; and next to
 * a root called `base`, every sibling directory holding `.sls` files is the environment of
 * its name (`salt/base` + `salt/dev`), as Salt's usual layout has it.
 */
export function guessRoots(facts: Pick<FirstRunFacts, 'tops' | 'sls'>): Roots {
  const roots: Roots = new Map();
  const add = (env: string, dir: string) => {
    const dirs = roots.get(env) ?? [];
    if (!dirs.includes(dir)) dirs.push(dir);
    roots.set(env, dirs);
  };
  const topDirs = [...new Set(facts.tops.map((t) => path.posix.dirname(t)))].sort((a, b) => depth(a) - depth(b) || a.localeCompare(b));
  for (const dir of topDirs) {
    const name = path.posix.basename(dir);
    const env = dir !== '.' && name !== '' && !roots.has(name) && /^[A-Za-z0-9_-]+$/.test(name) && (name === 'base' || roots.has('base')) ? name : 'base';
    add(env, dir);
  }
  for (const dir of roots.get('base') ?? []) {
    if (path.posix.basename(dir) !== 'base') continue;
    const parent = path.posix.dirname(dir);
    const siblings = new Set<string>();
    for (const f of facts.sls) {
      const rel = parent === '.' ? f : f.startsWith(parent + '/') ? f.slice(parent.length + 1) : undefined;
      if (rel === undefined || !rel.includes('/')) continue;
      const first = rel.split('/')[0];
      if (first !== 'base' && /^[A-Za-z0-9_-]+$/.test(first)) siblings.add(first);
    }
    for (const env of [...siblings].sort()) {
      if (!roots.has(env)) add(env, parent === '.' ? env : `${parent}/${env}`);
    }
  }
  return roots;
}

/** The one notification: what was found, and what the starter file would say. */
export function firstRunMessage(facts: FirstRunFacts, roots: Roots): string {
  const tops = facts.tops.length === 0 ? 'no top.sls' : `top.sls in ${facts.tops.map((t) => path.posix.dirname(t)).join(', ')}`;
  const minion = facts.minions.length === 1 ? `this machine (\`${facts.minions[0]}\`)` : 'this machine';
  const guessed = [...roots].map(([env, dirs]) => `${env}: ${dirs.join(', ')}`).join('; ');
  return (
    `salt-analyzer found no salt-analyzer.yaml and no Salt config, so the workspace root is the only root of \`base\` ` +
    `and the only minion is ${minion}, with no minion profiles. It found ${tops}. ` +
    `Create a starter salt-analyzer.yaml with file_roots ${guessed || 'base: .'} and one minion profile?`
  );
}

/** The starter salt-analyzer.yaml: the guessed roots and one profile to fill in. */
export function starterWorkspaceFile(roots: Roots, minion: string | undefined): string {
  const id = minion && /^[A-Za-z0-9_.-]+$/.test(minion) ? minion : 'minion1';
  const lines = [
    '# salt-analyzer workspace file (see https://github.com/salt-analyzer/salt-analyzer#configuration).',
    '# Written by the VS Code extension from the files it found; adjust the roots and the profile.',
    '# salt_config: /etc/salt        # or read the roots and the minion from a Salt config dir',
    'file_roots:',
  ];
  const entries = roots.size === 0 ? new Map([['base', ['.']]]) : roots;
  for (const [env, dirs] of entries) lines.push(`  ${env}: [${dirs.map(yamlScalar).join(', ')}]`);
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

function depth(dir: string): number {
  return dir === '.' ? 0 : dir.split('/').length;
}
