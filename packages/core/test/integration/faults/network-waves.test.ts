import { useTestDatabase } from '@pipeflush/testkit/vitest'
import { defineNetworkFaults } from './network-faults.ts'

// Network faults during a flush in `waves` mode, on a connection whose statements are prepared.
defineNetworkFaults(useTestDatabase(), [{ mode: 'waves', prepare: true, warm: true }])
