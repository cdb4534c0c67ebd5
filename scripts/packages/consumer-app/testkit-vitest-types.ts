// Type-checked only (vitest's helpers run inside a vitest run): the `./vitest` export's types resolve.
import type { TestDatabase } from '@pipeflush/testkit/vitest'

export type Database = TestDatabase
