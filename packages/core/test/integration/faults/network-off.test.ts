import { useTestDatabase } from '@pipeflush/testkit/vitest'
import { defineNetworkFaults } from './network-faults.ts'

// Network faults during a flush in `off` mode, on a connection whose statements are prepared.
defineNetworkFaults(useTestDatabase(), [{ mode: 'off', prepare: true, warm: true }])
