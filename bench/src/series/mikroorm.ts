import { EntitySchema } from '@mikro-orm/core'
import { MikroORM } from '@mikro-orm/postgresql'
import { createConnectionCounter } from '../measure/connection-counter.ts'
import { allTables, nextValues } from '../workload.ts'
import { ALL_SCENARIOS, type Series, type SeriesClient } from './types.ts'

/** A row of any benchmark table. */
interface Row {
  id: number
  v: string
}

/** One `EntitySchema` per benchmark table (no decorators, no reflect-metadata). */
function entitySchemas(): Map<string, EntitySchema<Row>> {
  const schemas = new Map<string, EntitySchema<Row>>()
  for (const table of allTables()) {
    schemas.set(
      table,
      new EntitySchema<Row>({
        name: `Row_${table}`,
        tableName: table,
        properties: {
          id: { type: 'number', primary: true, autoincrement: true },
          v: { type: 'string' },
        },
      }),
    )
  }
  return schemas
}

/**
 * MikroORM 7's `em.flush()` on a fresh fork per unit of work (as one web request would): BEGIN, one
 * `insert ... returning id` per table (multi-row VALUES in chunks of 300), each awaited, COMMIT.
 * Runs on node-postgres (through Kysely); round trips are counted at the `pg` pool's sockets.
 */
export const mikroOrmSeries: Series = {
  name: 'mikroorm',
  driver: 'pg',
  id: 'mikroorm',
  description: 'MikroORM 7 em.flush() on a fresh em.fork() per unit of work (EntitySchema entities)',
  scenarios: ALL_SCENARIOS,
  unavailableReason: async () => undefined,
  async open(target, { pool }): Promise<SeriesClient> {
    const counter = createConnectionCounter()
    const schemas = entitySchemas()
    const orm = await MikroORM.init({
      clientUrl: target.url,
      entities: [...schemas.values()],
      pool: { min: 0, max: pool },
      driverOptions: { stream: counter.stream, application_name: 'pipeflush-bench' },
      debug: false,
    })
    await orm.em.getConnection().execute('select 1')
    return {
      counter,
      async flush(work) {
        const em = orm.em.fork()
        for (const table of work.tables) {
          const schema = schemas.get(table)
          if (!schema) throw new Error(`mikroorm: no entity for table ${table}`)
          for (const v of nextValues(work.rowsPerTable)) em.create(schema, { v })
        }
        await em.flush()
      },
      query: (text) => orm.em.getConnection().execute(text),
      close: () => orm.close(true),
    }
  },
}
