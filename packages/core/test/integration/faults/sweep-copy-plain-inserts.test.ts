import { TEST_DRIVERS } from '@pipeflush/testkit/vitest'
import { defineSweep } from './sweep/define-sweep.ts'

// 40 plain inserts into one table, sent as COPY: the flush planned column by column, its snapshots
// taken while the rows are sent. A cut anywhere leaves all or none of them, the unit of work as it
// was, and the retry (planned the full way: the rows hold their ids then) commits them.
for (const driver of TEST_DRIVERS) defineSweep(driver, 'flush', { copyRows: 40, unit: 'plain-inserts' })
