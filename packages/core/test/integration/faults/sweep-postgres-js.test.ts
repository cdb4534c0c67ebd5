import { defineSweep } from './sweep/define-sweep.ts'

defineSweep('postgres.js')
