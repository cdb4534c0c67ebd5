import { Readable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import { nextValues, type Work } from '../workload.ts'
import { openPostgresJs, postgresJsQuery } from './postgres-js-client.ts'
import type { Series, SeriesClient } from './types.ts'

const LINES_PER_CHUNK = 2_000

/** COPY text lines of `values`, in chunks (the values are `v-<n>`: nothing to escape). */
function* copyChunks(values: readonly string[]): Generator<string> {
  for (let i = 0; i < values.length; i += LINES_PER_CHUNK)
    yield `${values.slice(i, i + LINES_PER_CHUNK).join('\n')}\n`
}

/**
 * postgres.js `COPY <table> (v) FROM STDIN`: the floor for bulk inserts. One COPY per table, each its
 * own implicit transaction (the large flush has a single table).
 */
export const copySeries: Series = {
  name: 'copy',
  driver: 'postgres.js',
  id: 'copy',
  description: 'postgres.js COPY ... FROM STDIN (floor for bulk inserts)',
  scenarios: ['large'],
  unavailableReason: async () => undefined,
  async open(target, { pool }): Promise<SeriesClient> {
    const { sql, counter } = await openPostgresJs(target.url, pool)
    return {
      counter,
      async flush(work: Work) {
        for (const table of work.tables) {
          const writable = await sql`copy ${sql(table)} (v) from stdin`.writable()
          await pipeline(Readable.from(copyChunks(nextValues(work.rowsPerTable))), writable)
        }
      },
      query: (text) => postgresJsQuery(sql, text),
      close: () => sql.end({ timeout: 5 }),
    }
  },
}
