import { errors } from '../../errors.ts'
import type { PostgresJsOptions } from './client-types.ts'

/**
 * The names pipeflush reads the answers to its own statements by: a table's columns as `c0, c1...`
 * (a read), `r0...` (what an insert or update returns), `k0...` (a graph level's keys), and the names
 * of the catalog read, the id fetch, the replicas' check and the flush log's.
 */
const RESULT_NAMES: readonly string[] = [
  'c0',
  'c1',
  'c10',
  'r0',
  'r1',
  'k0',
  'k1',
  'n',
  'current',
  'schemas',
  'datestyle',
  'efd',
  'arraynulls',
  'catalog',
  'seq',
  'rest',
  'first',
  'count',
  'ids',
  'lag',
  'db',
  'system',
  'pid',
  'found',
  'idtype',
  'committedtype',
  'unique',
  'committed',
]

/**
 * Refuses (`INVALID_CONFIG`) a postgres.js client whose `transform` renames the columns of results
 * (`transform.column.from`, or a `transform.row.from` that changes a row's names) so that pipeflush
 * would not find its own: `postgres.pascal` makes `c0` `C0`, and every read was then `NOT_FOUND` or
 * worse. Transforms that keep such names (`postgres.camel`, `postgres.kebab`) pass.
 *
 * @example
 * checkColumnTransform(postgres(url, { transform: postgres.pascal }).options) // throws INVALID_CONFIG
 */
export function checkColumnTransform(options: Pick<PostgresJsOptions, 'transform'>): void {
  const transform = options.transform
  const column = transform?.column?.from
  if (typeof column === 'function') {
    for (const name of RESULT_NAMES) {
      const renamed = attempt(() => column(name))
      if (renamed !== name) throw renaming('transform.column', name, renamed)
    }
  }
  const row = transform?.row?.from
  if (typeof row === 'function') {
    const sample: Record<string, string> = {}
    for (const name of RESULT_NAMES) sample[name] = name
    const out = attempt(() => row({ ...sample }))
    const kept = out as Record<string, unknown> | undefined
    const lost = RESULT_NAMES.find((name) => typeof kept !== 'object' || kept === null || kept[name] !== name)
    if (lost !== undefined) throw renaming('transform.row', lost, undefined)
  }
}

function attempt<T>(f: () => T): T | undefined {
  try {
    return f()
  } catch {
    return undefined
  }
}

function renaming(option: string, name: string, renamed: unknown) {
  const what =
    typeof renamed === 'string'
      ? `makes the column ${name} ${renamed}`
      : `does not keep the column ${name} as it is`
  return errors.invalidConfig(
    `The postgres.js client's ${option} ${what}: pipeflush reads the answers to its own statements by such names. Give EntityManager.connect a client made without that transform (the application's own queries may keep it on another client), or one that keeps lower-case names, such as postgres.camel.`,
  )
}
