import { defineSweep } from './sweep/define-sweep.ts'

// The 40 child rows of each case go as COPY, their data written when the server asks for it: a cut
// before, inside or after the data, in each direction.
defineSweep('postgres.js', 'flush', { copyRows: 40 })
