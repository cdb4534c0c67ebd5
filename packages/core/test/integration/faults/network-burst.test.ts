import { useTestDatabase } from '@pipeflush/testkit/vitest'
import { defineNetworkFaults } from './network-faults.ts'

// Network faults during a flush in `burst` mode, on a connection whose statements are prepared.
defineNetworkFaults(useTestDatabase(), [{ mode: 'burst', prepare: true, warm: true }])
