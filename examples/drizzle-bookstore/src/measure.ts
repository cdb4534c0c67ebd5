import type { EntityManagerFactory } from '@pipeflush/drizzle'
import type { ExamplePool } from '@pipeflush/example-support'
import type { Bookstore } from './requests/bookstore.ts'
import type { RunRequest } from './requests/pipeflush.ts'
import type { schema } from './schema.ts'
import { type Earlier, SCRIPT, type Step } from './script.ts'

/** A flush's round trips as its report says and as the pool's socket counted them. */
export interface FlushCount {
  readonly reported: number
  readonly socket: number
}

/** One request of a run of the script: its round trips at the socket, its time, its answer. */
export interface Measured {
  readonly step: Step
  readonly roundTrips: number
  readonly ms: number
  /** pipeflush only: its flush. */
  readonly flush: FlushCount | undefined
  readonly answer: unknown
}

/**
 * The factory's `run` for the pipeflush bookstore, each flush's report checked against the round
 * trips `counter` saw while it ran (the pool must run one request at a time); `last()` takes the
 * count of the last flush.
 *
 * @example
 * const metered = meteredRun(factory, app.counter)
 * const store = pipeflushBookstore(db, metered.run)
 */
export function meteredRun(factory: EntityManagerFactory<typeof schema>, counter: ExamplePool['counter']) {
  let last: FlushCount | undefined
  const run: RunRequest = async (work) => {
    let before = 0
    const { result, report } = await factory.run(async (em) => {
      const respond = await work(em)
      before = counter.read().roundTrips // what follows is the flush
      return respond
    })
    last = { reported: report.roundTrips, socket: counter.read().roundTrips - before }
    return result()
  }
  return {
    run,
    /** The count of the flush since the last call, if any. */
    last(): FlushCount | undefined {
      const taken = last
      last = undefined
      return taken
    },
  }
}

/**
 * Sends the script's requests to `store` one at a time, each counted at the pool's socket
 * (`counter`) and timed.
 */
export async function runScript(
  store: Bookstore,
  counter: ExamplePool['counter'],
  flushOf: () => FlushCount | undefined = () => undefined,
): Promise<Measured[]> {
  const earlier: Earlier = {}
  const out: Measured[] = []
  flushOf()
  for (const step of SCRIPT) {
    counter.reset()
    const t0 = performance.now()
    const answer = await step.call(store, earlier)
    const ms = performance.now() - t0
    out.push({ step, roundTrips: counter.read().roundTrips, ms, flush: flushOf(), answer })
  }
  return out
}

/**
 * The RTT of a `select 1` through the proxy, in ms: the median of `samples` after one to warm up.
 * A request's time in RTTs is read against it.
 */
export async function measureRtt(query: (text: string) => Promise<unknown>, samples = 9): Promise<number> {
  await query('select 1')
  const times: number[] = []
  for (let i = 0; i < samples; i++) {
    const t0 = performance.now()
    await query('select 1')
    times.push(performance.now() - t0)
  }
  times.sort((a, b) => a - b)
  return times[Math.floor(times.length / 2)]!
}
