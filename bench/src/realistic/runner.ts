import type { ConnectionCounter } from '../measure/connection-counter.ts'
import type { DriverName, LibraryReport, SeriesName, Target } from '../series/types.ts'
import type { Unit } from './unit.ts'

/** A unit of work loaded and changed in memory, ready to flush. */
export type PreparedFlush = () => Promise<LibraryReport | undefined>

/** A library's client on a cold pool, replaying units of work of the realistic mix. */
export interface UnitRunner {
  /** Round trips per connection of the pool. */
  readonly counter: ConnectionCounter
  /** Reads what `unit` reads and makes its changes in a fresh unit of work; the flush is left to the caller. */
  prepare(unit: Unit): Promise<PreparedFlush>
  close(): Promise<void>
}

/** A library that can replay the realistic workload. */
export interface RealisticSeries {
  readonly name: SeriesName
  readonly driver: DriverName
  /** As in the other scenarios: the name, with the driver for series on both drivers. */
  readonly id: string
  readonly description: string
  unavailableReason(): Promise<string | undefined>
  /** A fresh client of `pool` connections, none opened yet beyond what the library itself opens to start. */
  open(target: Target, pool: number): Promise<UnitRunner>
}
