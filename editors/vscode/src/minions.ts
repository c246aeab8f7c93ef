//! Minion profiles as `salt-analyzer.listMinions` returns them, and what the
//! status bar and the quick pick show for them. No VS Code API here.

export const COMMANDS = {
  listMinions: 'salt-analyzer.listMinions',
  selectMinion: 'salt-analyzer.selectMinion',
  topExplain: 'salt-analyzer.topExplain',
  refreshPillar: 'salt-analyzer.refreshPillar',
  impactReport: 'salt-analyzer.impactReport',
} as const;

export interface Minion {
  id: string;
  selected: boolean;
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
    const { id, selected } = item as { id?: unknown; selected?: unknown };
    if (typeof id !== 'string' || id === '') continue;
    out.push({ id, selected: selected === true });
  }
  return out;
}

export function selectedMinion(minions: readonly Minion[]): string | undefined {
  return minions.find((m) => m.selected)?.id;
}

export interface StatusText {
  text: string;
  tooltip: string;
}

/** Status-bar text: `$(server) web01`, or why there is none. */
export function statusText(state: { kind: 'starting' } | { kind: 'stopped'; reason?: string } | { kind: 'running'; minion?: string }): StatusText {
  switch (state.kind) {
    case 'starting':
      return { text: '$(sync~spin) salt', tooltip: 'salt-analyzer is starting' };
    case 'stopped':
      return { text: '$(error) salt', tooltip: state.reason ?? 'salt-analyzer is not running' };
    case 'running':
      return state.minion === undefined
        ? { text: '$(server) no minion', tooltip: 'No minion profile selected. Click to select one.' }
        : { text: `$(server) ${state.minion}`, tooltip: `Minion profile: ${state.minion}. Click to select another.` };
  }
}

export interface PickItem {
  label: string;
  description?: string;
  id: string;
}

/** Quick-pick entries, the selected profile first and marked. */
export function pickItems(minions: readonly Minion[]): PickItem[] {
  const sorted = [...minions].sort((a, b) => Number(b.selected) - Number(a.selected));
  return sorted.map((m) => (m.selected ? { label: m.id, description: 'selected', id: m.id } : { label: m.id, id: m.id }));
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
