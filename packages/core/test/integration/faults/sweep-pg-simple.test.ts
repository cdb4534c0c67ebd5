import { defineSweep } from './sweep/define-sweep.ts'

// A pg.Pool made without `pipeline: true` (what most applications hold): every mode goes as
// simple-protocol text, burst as one Query message.
defineSweep('pg-simple')
