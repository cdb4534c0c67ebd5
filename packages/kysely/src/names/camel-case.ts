import { CamelCasePlugin, type Kysely } from 'kysely'

/** What pipeflush uses of a Kysely `CamelCasePlugin` (its mapping and its results' transform). */
export interface CamelCase {
  /** A name in the database as the application names it: `post_title` as `postTitle`. */
  camelCase(name: string): string
  transformResult(args: { result: { rows: unknown[] }; queryId: { queryId: string } }): Promise<{
    rows: unknown[]
  }>
}

/**
 * The `CamelCasePlugin` of the application's Kysely (one of the class, of a class extending it, or
 * of another copy of Kysely's: known by its class's name too); undefined without one. `usable` is
 * false for one whose mapping cannot be called (not a plugin of Kysely's making).
 *
 * @example
 * camelCaseOf(new Kysely({ dialect, plugins: [new CamelCasePlugin()] }))?.plugin.camelCase('post_title') // 'postTitle'
 */
export function camelCaseOf(
  db: object,
): { readonly plugin: CamelCase; readonly usable: boolean } | undefined {
  const executor = (db as { getExecutor?: () => { readonly plugins?: readonly unknown[] } }).getExecutor?.()
  for (const plugin of executor?.plugins ?? []) {
    if (!isCamelCase(plugin)) continue
    const p = plugin as Partial<CamelCase>
    return {
      plugin: plugin as CamelCase,
      usable: typeof p.camelCase === 'function' && typeof p.transformResult === 'function',
    }
  }
  return undefined
}

/** Whether `plugin` is a `CamelCasePlugin`: of the class, or of a class so named it extends. */
function isCamelCase(plugin: unknown): boolean {
  if (plugin instanceof CamelCasePlugin) return true
  let c: unknown = (plugin as object | null)?.constructor
  while (typeof c === 'function' && c !== Function.prototype) {
    if (c.name === 'CamelCasePlugin') return true
    c = Object.getPrototypeOf(c)
  }
  return false
}

/**
 * `rows` as the application's Kysely gives a query's rows: renamed by its `CamelCasePlugin`, if it has
 * one (the rows of `em.select`, which pipeflush runs itself); else as they are.
 */
export async function rowsAsKyselyGives(
  db: Kysely<unknown> | object,
  rows: readonly Record<string, unknown>[],
): Promise<readonly Record<string, unknown>[]> {
  const camel = camelCaseOf(db)
  if (camel === undefined || !camel.usable) return rows
  const result = await camel.plugin.transformResult({
    result: { rows: [...rows] },
    queryId: { queryId: 'pipeflush-select' },
  })
  return result.rows as Record<string, unknown>[]
}
