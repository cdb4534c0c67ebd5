import { TEST_DRIVERS, useTestDatabase } from '@pipeflush/testkit/vitest'
import { defineNetworkFaults } from './network-faults.ts'
import type { Variant } from './network-scenarios.ts'

const pooler: Variant[] = [
  // The setting for transaction-mode poolers: a postgres.js client made with `prepare: false` (its
  // flushes are simple-protocol text either way), pg pools sending unnamed statements in every mode.
  ...(TEST_DRIVERS.includes('postgres.js')
    ? [{ driver: 'postgres.js', mode: 'burst', warm: true, prepare: false } as const]
    : []),
  ...(TEST_DRIVERS.includes('pg')
    ? (['burst', 'waves', 'off'] as const).map(
        (mode): Variant => ({ driver: 'pg', mode, warm: true, prepare: false }),
      )
    : []),
  // A pg pool made without `pipeline`: its flushes are simple-protocol text, like postgres.js's.
  { driver: 'pg-simple', mode: 'burst', warm: true },
]

defineNetworkFaults(useTestDatabase(), [
  {
    // A burst on a connection opened by the flush (its startup and authentication are part of it), for
    // each driver: the faults that hit the connection's opening, and those that hit the flush after it.
    variants: TEST_DRIVERS.map((driver): Variant => ({ driver, mode: 'burst', warm: false })),
    only: [
      'reset_peer on the first byte',
      'a stalled connection',
      'the connection is lost after the COMMIT',
      'latency spikes',
      'the flush gives up',
      'a flush blocked on a row lock',
    ],
  },
  {
    // The timeout and terminate paths do not depend on the protocol: the warm files cover them.
    variants: pooler,
    only: [
      'reset_peer on the first byte',
      'the connection is lost after the COMMIT',
      'limit_data',
      'the flush gives up',
      'a flush blocked on a row lock',
    ],
  },
])
