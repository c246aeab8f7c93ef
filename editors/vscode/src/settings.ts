//! The `salt-analyzer` settings as the server reads them: initializationOptions,
//! workspace/configuration answers and didChangeConfiguration all use this shape.

import { resolvePathSetting, DiscoveryContext } from './discovery';

export const SECTION = 'salt-analyzer';

export type TraceLevel = 'off' | 'messages' | 'verbose';

/** The server's contract: `{ minion, saltConfig, saltCall, impact: { toSaltVersion }, inlayHints: { values, conditions, loops, sets }, trace: { server } }`. */
export interface ServerSettings {
  minion: string | null;
  saltConfig: string | null;
  /** The `salt-call` asked for Salt's state docs: null = the one on PATH, false = never. */
  saltCall: string | false | null;
  /** The Salt release the impact lens and report compile the changes on (null: the minion's own). */
  impact: { toSaltVersion: string | null };
  /** Which rendered values the server shows inline (each on unless false). */
  inlayHints: InlayHintSettings;
  trace: { server: TraceLevel };
}

/** The kinds of inlay hint of rendered values. */
export interface InlayHintSettings {
  values: boolean;
  conditions: boolean;
  loops: boolean;
  sets: boolean;
}

/**
 * Editor settings as read back from the configuration. Values are `unknown`
 * because users edit settings.json by hand and anything may be there.
 */
export interface RawSettings {
  minion?: unknown;
  saltConfig?: unknown;
  saltCall?: unknown;
  impact?: unknown;
  inlayHints?: unknown;
  trace?: unknown;
}

export type PathContext = Pick<DiscoveryContext, 'platform' | 'env' | 'workspaceFolder' | 'home'>;

/**
 * Maps editor settings to server settings: blank strings become null (the
 * server then uses salt-analyzer.yaml or its defaults), the Salt config
 * directory becomes absolute, and an unknown trace level becomes "off".
 * `server.path` is the editor's business and is not sent.
 */
export function toServerSettings(raw: RawSettings, ctx: PathContext): ServerSettings {
  const minion = nonEmpty(raw.minion);
  const saltConfig = nonEmpty(raw.saltConfig);
  const saltCall = raw.saltCall === false ? false : nonEmpty(raw.saltCall);
  return {
    minion,
    saltConfig: saltConfig === null ? null : resolvePathSetting(saltConfig, ctx),
    saltCall: saltCall === null || saltCall === false ? saltCall : resolvePathSetting(saltCall, ctx),
    impact: { toSaltVersion: impactRelease(raw.impact) },
    inlayHints: inlayHintSettings(raw.inlayHints),
    trace: { server: traceLevel(raw.trace) },
  };
}

/** Reads `inlayHints.{values,conditions,loops,sets}`: each kind is shown unless it is `false`. */
export function inlayHintSettings(raw: unknown): InlayHintSettings {
  const o = typeof raw === 'object' && raw !== null ? (raw as Record<string, unknown>) : {};
  return { values: o.values !== false, conditions: o.conditions !== false, loops: o.loops !== false, sets: o.sets !== false };
}

/** The notification body for workspace/didChangeConfiguration. */
export function didChangeConfigurationParams(settings: ServerSettings): { settings: { [SECTION]: ServerSettings } } {
  return { settings: { [SECTION]: settings } };
}

/** Reads `trace.server` from either `{ server: "..." }` or a bare string. */
export function traceLevel(trace: unknown): TraceLevel {
  const value = typeof trace === 'object' && trace !== null ? (trace as { server?: unknown }).server : trace;
  return value === 'messages' || value === 'verbose' ? value : 'off';
}

/** The releases the server compiles for: the impact target's choices. */
export const SALT_RELEASES = ['3006', '3007', '3008'] as const;

/** Reads `impact.toSaltVersion` from `{ toSaltVersion: "3008" }`; anything else is null. */
export function impactRelease(impact: unknown): string | null {
  const value = typeof impact === 'object' && impact !== null ? (impact as { toSaltVersion?: unknown }).toSaltVersion : undefined;
  const text = nonEmpty(value);
  return text !== null && (SALT_RELEASES as readonly string[]).includes(text) ? text : null;
}

function nonEmpty(value: unknown): string | null {
  if (typeof value !== 'string') return null;
  const trimmed = value.trim();
  return trimmed === '' ? null : trimmed;
}

