/**
 * How a flush is sent: `off` one statement per round trip, `waves` each wave of independent
 * statements pipelined, `burst` the whole flush in one message (see `modes.ts`). A module of its own
 * so that reports, settings and spans name it without importing the modes.
 */
export type PipelineMode = 'off' | 'waves' | 'burst'
