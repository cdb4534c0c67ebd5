/** An alarm set by {@link setAlarm}: cancel it once what it guards settled. */
export interface Alarm {
  cancel(): void
}

const NO_ALARM: Alarm = { cancel() {} }

class Entry implements Alarm {
  readonly deadline: number
  readonly ring: () => void

  constructor(deadline: number, ring: () => void) {
    this.deadline = deadline
    this.ring = ring
  }

  cancel(): void {
    if (pending.delete(this) && pending.size === 0) timer?.unref()
  }
}

/** The alarms not rung nor cancelled, in the order they were set. */
const pending = new Set<Entry>()
/** The one Node timer, armed for `armedAt` (kept, unreferenced, while no alarm is pending). */
let timer: NodeJS.Timeout | undefined
let armedAt = Number.POSITIVE_INFINITY

/** The longest a Node.js timer waits (2^31 - 1 ms, about 24.8 days): a longer one fires at once. */
export const MAX_TIMER_MS = 2 ** 31 - 1

/**
 * Calls `ring` once `performance.now()` reaches `deadline` (never for an infinite one), unless the
 * alarm is cancelled first. Every alarm shares one Node timer, armed for the earliest: a flush or a
 * read sets one or two and cancels them a few milliseconds later, so most never move the timer, where
 * a `setTimeout` each cost a timer list and its removal per flush. The timer keeps the process alive
 * only while some alarm is pending, as a `setTimeout` would.
 *
 * @example
 * const alarm = setAlarm(performance.now() + 30_000, () => socket.destroy())
 * await answer
 * alarm.cancel()
 */
export function setAlarm(deadline: number, ring: () => void): Alarm {
  if (!Number.isFinite(deadline)) return NO_ALARM
  const entry = new Entry(deadline, ring)
  pending.add(entry)
  if (deadline < armedAt) arm(deadline)
  else if (pending.size === 1) timer?.ref()
  return entry
}

function arm(at: number): void {
  if (timer !== undefined) clearTimeout(timer)
  armedAt = at
  // A longer wait than a timer takes fires at once: `fire` arms again for what is left.
  timer = setTimeout(fire, Math.min(Math.max(0, at - performance.now()), MAX_TIMER_MS))
}

function fire(): void {
  timer = undefined
  armedAt = Number.POSITIVE_INFINITY
  // A timer may fire up to a millisecond before the fraction of a millisecond it was set for.
  const now = performance.now() + 1
  const due: Entry[] = []
  let next = Number.POSITIVE_INFINITY
  for (const entry of pending) {
    if (entry.deadline <= now) due.push(entry)
    else if (entry.deadline < next) next = entry.deadline
  }
  for (const entry of due) pending.delete(entry)
  if (next !== Number.POSITIVE_INFINITY) arm(next)
  for (const entry of due) entry.ring()
}
