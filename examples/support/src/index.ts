/**
 * What pipeflush's examples share: a database of their own behind an injected latency
 * ({@link startExampleDatabase}), their command-line options and result tables.
 *
 * @example
 * const { latencyMs, modes } = parseExampleArgs(process.argv.slice(2))
 * const db = await startExampleDatabase({ name: 'bookstore', latencyMs })
 */
export { type ExampleArgs, parseExampleArgs } from './args.ts'
export {
  type ExampleDatabase,
  type ExampleDatabaseOptions,
  type ExamplePool,
  startExampleDatabase,
} from './example-database.ts'
export { seededRandom } from './random.ts'
export { formatTable } from './table.ts'
