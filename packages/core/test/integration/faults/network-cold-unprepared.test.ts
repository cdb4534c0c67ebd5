import { useTestDatabase } from '@pipeflush/testkit/vitest'
import { defineNetworkFaults } from './network-faults.ts'

// The same faults on the other paths: burst on a cold connection (statements not prepared yet: one
// simple-protocol query after BEGIN), and every mode on a client made with `prepare: false` (simple
// protocol only, the setting for transaction-mode poolers).
defineNetworkFaults(
  useTestDatabase(),
  [
    { mode: 'burst', prepare: true, warm: false },
    { mode: 'burst', prepare: false, warm: false },
    { mode: 'waves', prepare: false, warm: false },
    { mode: 'off', prepare: false, warm: false },
  ],
  [
    // The timeout and terminate paths do not depend on the protocol: the warm files cover them.
    'reset_peer on the first byte',
    'the connection is lost after the COMMIT',
    'limit_data',
    'the flush gives up',
    'a flush blocked on a row lock',
  ],
)
