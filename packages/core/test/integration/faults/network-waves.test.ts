import { TEST_DRIVERS, useTestDatabase } from '@pipeflush/testkit/vitest'
import { defineNetworkFaults } from './network-faults.ts'

// Network faults during a flush in `waves` mode, on a warm connection, for each driver.
defineNetworkFaults(useTestDatabase(), [
  { variants: TEST_DRIVERS.map((driver) => ({ driver, mode: 'waves', warm: true })) },
])
