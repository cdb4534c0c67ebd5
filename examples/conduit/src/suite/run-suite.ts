import { randomBytes } from 'node:crypto'
import { readFileSync } from 'node:fs'
import newman from 'newman'

/** One request of the suite as newman sent it. */
export interface SuiteRequest {
  /** Its name in the collection, e.g. `Single Article by slug`. */
  readonly name: string
  readonly method: string
  /** The path and query string sent, e.g. `/api/articles?tag=dragons`. */
  readonly path: string
  readonly status: number | undefined
  readonly assertions: number
  readonly failed: number
}

/** An assertion of the suite that failed. */
export interface SuiteFailure {
  readonly request: string
  readonly assertion: string
  readonly message: string
}

/** What a run of the suite gave. */
export interface SuiteResult {
  /** Requests sent, in order. */
  readonly requests: readonly SuiteRequest[]
  readonly assertions: { readonly total: number; readonly failed: number }
  readonly failures: readonly SuiteFailure[]
  /** The user the run registered (`USERNAME`). */
  readonly username: string
}

/**
 * Runs the RealWorld suite (the Postman collection at `collectionPath`) against the API at `apiUrl`
 * with newman, as its README says (globals `APIURL`, `USERNAME`, `EMAIL`, `PASSWORD`), without the
 * delay between requests the upstream command adds: each request is sent when the previous one was
 * answered. `USERNAME` is new for each run, so a database can take several runs.
 *
 * @example
 * const result = await runSuite(collection.path, conduit.apiUrl)
 * result.assertions // { total: 381, failed: 0 }
 */
export async function runSuite(collectionPath: string, apiUrl: string): Promise<SuiteResult> {
  const collection = JSON.parse(readFileSync(collectionPath, 'utf8')) as object
  const username = `u${Date.now().toString(36)}${randomBytes(3).toString('hex')}`
  const values = [
    ['APIURL', apiUrl],
    ['USERNAME', username],
    ['EMAIL', `${username}@mail.com`],
    ['PASSWORD', 'password'],
  ].map(([key, value]) => ({ key: key!, value: value!, type: 'any', enabled: true }))
  const summary = await new Promise<newman.NewmanRunSummary>((resolve, reject) => {
    newman.run({ collection, globals: { values } }, (error, result) =>
      error ? reject(error as Error) : resolve(result),
    )
  })
  const requests = summary.run.executions.map((e) => {
    const assertions = e.assertions ?? []
    return {
      name: e.item.name,
      method: e.request.method,
      path: `/${e.request.url.getPathWithQuery().replace(/^\//, '')}`,
      status: e.response?.code,
      assertions: assertions.length,
      failed: assertions.filter((a) => a.error !== undefined && a.error !== null).length,
    }
  })
  const failures = summary.run.failures.map((f) => ({
    request: (f.source as { name?: string } | undefined)?.name ?? '?',
    assertion: f.error.test ?? f.error.name,
    message: f.error.message,
  }))
  const stats = summary.run.stats.assertions
  return {
    requests,
    assertions: { total: stats.total ?? 0, failed: stats.failed ?? 0 },
    failures,
    username,
  }
}
