//! Minion profiles as `salt-analyzer.listMinions` returns them, and what the
//! status bar and the quick pick show for them. No VS Code API here.

export const COMMANDS = {
  listMinions: 'salt-analyzer.listMinions',
  selectMinion: 'salt-analyzer.selectMinion',
  topExplain: 'salt-analyzer.topExplain',
  refreshPillar: 'salt-analyzer.refreshPillar',
  impactReport: 'salt-analyzer.impactReport',
  checkFleet: 'salt-analyzer.checkFleet',
  workspaceInfo: 'salt-analyzer.workspaceInfo',
} as const;

export interface Minion {
  id: string;
  selected: boolean;
  /** `fleet` for a minion of the workspace's fleet (`fleet:`); absent for a profile. */
  source?: string;
  /** The grains people target by (`os_family=Debian roles=web ...`), searched by the pick. */
  detail?: string;
  /** The Salt release its answers are for (`3006`), and where that came from. */
  salt?: { version: string; source: string };
}

/**
 * Accepts the server's `[{ "id": "web01", "selected": true }, ...]` and drops
 * anything else, so that a malformed answer shows as "no profiles" instead of
 * throwing in the middle of a click.
 */
export function parseMinions(result: unknown): Minion[] {
  if (!Array.isArray(result)) return [];
  const out: Minion[] = [];
  for (const item of result) {
    if (typeof item !== 'object' || item === null) continue;
    const { id, selected, source, detail, salt } = item as { id?: unknown; selected?: unknown; source?: unknown; detail?: unknown; salt?: unknown };
    if (typeof id !== 'string' || id === '') continue;
    const minion: Minion = { id, selected: selected === true };
    if (source === 'fleet') minion.source = 'fleet';
    if (typeof detail === 'string' && detail !== '') minion.detail = detail;
    if (typeof salt === 'object' && salt !== null) {
      const { version, source: from } = salt as { version?: unknown; source?: unknown };
      if (typeof version === 'string' && version !== '') minion.salt = { version, source: typeof from === 'string' ? from : '' };
    }
    out.push(minion);
  }
  return out;
}

export function selectedMinion(minions: readonly Minion[]): string | undefined {
  return minions.find((m) => m.selected)?.id;
}

/** The Salt release the selected minion's answers are for. */
export function selectedSalt(minions: readonly Minion[]): Minion['salt'] {
  return minions.find((m) => m.selected)?.salt;
}

export interface StatusText {
  text: string;
  tooltip: string;
}

/** Status-bar text: `$(server) web01 · Salt 3008`, or why there is none. */
export function statusText(
  state: { kind: 'starting' } | { kind: 'stopped'; reason?: string } | { kind: 'running'; minion?: string; salt?: Minion['salt'] },
): StatusText {
  switch (state.kind) {
    case 'starting':
      return { text: '$(sync~spin) salt', tooltip: 'salt-analyzer is starting' };
    case 'stopped':
      return { text: '$(error) salt', tooltip: state.reason ?? 'salt-analyzer is not running' };
    case 'running':
      return state.minion === undefined
        ? { text: '$(server) no minion', tooltip: 'No minion profile selected. Click to select one.' }
        : state.salt === undefined
          ? { text: `$(server) ${state.minion}`, tooltip: `Minion profile: ${state.minion}. Click to select another.` }
          : {
              text: `$(server) ${state.minion} · Salt ${state.salt.version}`,
              tooltip: `Minion profile: ${state.minion}, answered for Salt ${state.salt.version}${state.salt.source === '' ? '' : ` (${state.salt.source})`}. Click to select another.`,
            };
  }
}

export interface PickItem {
  label: string;
  description?: string;
  detail?: string;
  id: string;
}

/**
 * Quick-pick entries, the selected one first and marked; fleet minions say so, and each
 * carries its grains as the detail line the pick also searches.
 */
export function pickItems(minions: readonly Minion[]): PickItem[] {
  const sorted = [...minions].sort((a, b) => Number(b.selected) - Number(a.selected));
  return sorted.map((m) => {
    const item: PickItem = { label: m.id, id: m.id };
    const description = [m.selected ? 'selected' : '', m.source === 'fleet' ? 'fleet' : ''].filter((d) => d !== '').join(', ');
    if (description !== '') item.description = description;
    if (m.detail !== undefined) item.detail = m.detail;
    return item;
  });
}

/** Arguments for `salt-analyzer.topExplain`: `[]` for the selected minion, else `[id]`. */
export function topExplainArguments(minion: string | undefined): string[] {
  return minion === undefined || minion === '' ? [] : [minion];
}

/** The server answers with a string; anything else is shown as JSON rather than lost. */
export function topExplainText(result: unknown): string {
  if (typeof result === 'string') return result;
  if (result === null || result === undefined) return '';
  return JSON.stringify(result, null, 2);
}
