/**
 * What a client's `target_session_attrs` asks of a server, as libpq and postgres.js name it: `any`
 * (the default), `read-write`, `read-only`, `primary`, `standby`, `prefer-standby`.
 */
export type TargetSessionAttrs = 'any' | 'read-write' | 'read-only' | 'primary' | 'standby' | 'prefer-standby'

const KNOWN: ReadonlySet<string> = new Set([
  'any',
  'read-write',
  'read-only',
  'primary',
  'standby',
  'prefer-standby',
])

/** `value` as a {@link TargetSessionAttrs}: absent, empty or unknown is `any`. */
export function targetSessionAttrs(value: unknown): TargetSessionAttrs {
  return typeof value === 'string' && KNOWN.has(value) ? (value as TargetSessionAttrs) : 'any'
}

/** Whether `attrs` asks for a server that takes writes (`read-write` or `primary`). */
export function wantsPrimary(attrs: TargetSessionAttrs): boolean {
  return attrs === 'read-write' || attrs === 'primary'
}

/**
 * Why a server whose startup reported `parameters` (its ParameterStatus messages) does not serve a
 * client that wants a primary (`read-write` or `primary`), or undefined when it does. `unknown` when
 * the server did not report what decides: PostgreSQL before 14 sends no `in_hot_standby`.
 *
 * As libpq decides: `primary` refuses a server in recovery (`in_hot_standby` on); `read-write` also
 * one whose sessions are read-only by default (`default_transaction_read_only` on). A hot standby
 * reports `default_transaction_read_only` off (its sessions are read-only through recovery, not that
 * setting), so `in_hot_standby` is what tells it; both are sent at every startup since PostgreSQL 14,
 * at no round trip.
 */
export function refusalOf(
  attrs: TargetSessionAttrs,
  parameters: ReadonlyMap<string, string>,
): string | 'unknown' | undefined {
  if (!wantsPrimary(attrs)) return undefined
  const inRecovery = parameters.get('in_hot_standby')
  if (inRecovery === undefined) return 'unknown'
  if (inRecovery === 'on') return 'is in recovery (a hot standby: in_hot_standby is on)'
  if (attrs === 'read-write' && parameters.get('default_transaction_read_only') === 'on')
    return 'is read-only (default_transaction_read_only is on)'
  return undefined
}
