import { readFile } from 'node:fs/promises'
import { appKysely } from '@pipeflush/example-support'
import { createEntityManagerFactory, relationsTypeSource } from '@pipeflush/kysely'
import { useTestDatabase } from '@pipeflush/testkit/vitest'
import { expect, test } from 'vitest'
import { createSchema, type DB } from '../src/schema.ts'

const db = useTestDatabase()

test('src/relations.ts is what relationsTypeSource writes for the schema', async () => {
  await createSchema((text) => db.sql.unsafe(text))
  const pool = db.client('postgres.js', { proxied: false })
  const factory = await createEntityManagerFactory<DB>({ client: pool.client, db: appKysely<DB>(pool) })
  const written = await readFile(new URL('../src/relations.ts', import.meta.url), 'utf8')
  expect(relationsTypeSource(factory.schema)).toBe(written)
})
