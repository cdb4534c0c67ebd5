import { defineSweep } from './sweep/define-sweep.ts'

// The 40 child rows of each case go as COPY, their data behind the statement in the same write: a
// pool made with `pipeline: true` and one without (where waves and off go as simple-protocol text).
defineSweep('pg', 'flush', { copyRows: 40 })
defineSweep('pg-simple', 'flush', { copyRows: 40 })
