/**
 * The parameters a PostgreSQL 18 server reports at startup (ParameterStatus), with the values of a
 * default installation; the client's StartupMessage may set those it names (`client_encoding`,
 * `DateStyle`, `application_name`, `-c name=value` in `options`...).
 */
export const POSTGRES_18_PARAMETERS: Readonly<Record<string, string>> = {
  application_name: '',
  client_encoding: 'UTF8',
  DateStyle: 'ISO, MDY',
  default_transaction_read_only: 'off',
  in_hot_standby: 'off',
  integer_datetimes: 'on',
  IntervalStyle: 'postgres',
  is_superuser: 'on',
  scram_iterations: '4096',
  search_path: '"$user", public',
  server_encoding: 'UTF8',
  server_version: '18.4',
  session_authorization: 'postgres',
  standard_conforming_strings: 'on',
  TimeZone: 'UTC',
}

/** Settings that are not reported but that `SHOW` answers (lowercase names). */
const OTHER_SETTINGS: Readonly<Record<string, string>> = {
  extra_float_digits: '1',
  server_version_num: '180004',
  max_identifier_length: '63',
  transaction_isolation: 'read committed',
  default_transaction_isolation: 'read committed',
  transaction_read_only: 'off',
  lc_monetary: 'C',
  bytea_output: 'hex',
}

/**
 * The parameters a connection is reported, in `base` with what its StartupMessage sets, and every
 * setting `SHOW` answers on it (lowercase names).
 *
 * @example
 * connectionParameters(POSTGRES_18_PARAMETERS, { user: 'app', datestyle: 'ISO, DMY' }).reported.DateStyle // 'ISO, DMY'
 */
export function connectionParameters(
  base: Readonly<Record<string, string>>,
  startup: Readonly<Record<string, string>>,
): { reported: Record<string, string>; settings: Record<string, string> } {
  const reported: Record<string, string> = { ...base }
  const settings: Record<string, string> = { ...OTHER_SETTINGS }
  const byLower = new Map(Object.keys(reported).map((k) => [k.toLowerCase(), k]))
  const set = (name: string, value: string) => {
    const known = byLower.get(name.toLowerCase())
    if (known !== undefined) reported[known] = value
    else settings[name.toLowerCase()] = value
  }
  for (const [name, value] of Object.entries(startup)) {
    if (name === 'user') {
      reported['session_authorization'] = value
    } else if (name === 'options') {
      for (const m of value.matchAll(/(?:-c\s*|--)([\w.]+)=((?:\\ |\S)+)/g))
        set(m[1]!, m[2]!.replace(/\\ /g, ' '))
    } else if (name !== 'database' && name !== 'replication') {
      set(name, value)
    }
  }
  for (const [k, v] of Object.entries(reported)) settings[k.toLowerCase()] = v
  return { reported, settings }
}
