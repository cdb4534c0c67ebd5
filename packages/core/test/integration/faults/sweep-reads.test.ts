import { TEST_DRIVERS } from '@pipeflush/testkit/vitest'
import { defineSweep } from './sweep/define-sweep.ts'

for (const driver of TEST_DRIVERS) defineSweep(driver, 'reads')
