/**
 * What pipeflush's examples share: a database of their own behind an injected latency
 * ({@link startExampleDatabase}) with pools of the chosen driver, the application's Kysely on such a
 * pool, flushes checked against the socket ({@link FlushMeter}), their command-line options and result
 * tables.
 *
 * @example
 * const { latencyMs, modes, driver } = parseExampleArgs(process.argv.slice(2))
 * const db = await startExampleDatabase({ name: 'bookstore', latencyMs, driver })
 * const app = db.connect(1)
 * const factory = await createEntityManagerFactory<DB>({ client: app.client, db: appKysely<DB>(app) })
 * const meter = new FlushMeter(factory, app.counter)
 */
export { appKysely } from './app-kysely.ts'
export { type ExampleArgs, parseExampleArgs } from './args.ts'
export {
  type ExampleDatabase,
  type ExampleDatabaseOptions,
  type ExamplePool,
  startExampleDatabase,
} from './example-database.ts'
export { describeSocketCheck, FlushMeter, type MeteredFlush, type UnitOfWorkFactory } from './flush-meter.ts'
export { seededRandom } from './random.ts'
export { formatTable } from './table.ts'
