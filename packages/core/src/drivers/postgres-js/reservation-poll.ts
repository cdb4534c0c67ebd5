/** How often a waiting reservation is checked (see `reservation.ts`). */
export const POLL_MS = 100

/** The checks of the reservations waiting now. */
const checks = new Set<() => void>()
/** The one Node timer that runs them (kept, unreferenced, while none waits, until a tick finds none). */
let timer: NodeJS.Timeout | undefined

/**
 * Runs `check` every {@link POLL_MS} or so until the returned function is called. Every waiting
 * reservation of the process shares one interval timer: a flush reserves a connection and has it a
 * moment later, so a timer of its own was made and cleared at every flush, where the shared one is
 * made once and lives as long as reservations keep coming. The first check may come sooner than
 * `POLL_MS` after the call (the checks compare the times they care about themselves). The timer keeps
 * the process alive only while some check is registered, as a timer of its own would.
 *
 * @example
 * const stop = everyPoll(() => { if (performance.now() - started >= limit) giveUp() })
 * // ... once the reservation is answered:
 * stop()
 */
export function everyPoll(check: () => void): () => void {
  checks.add(check)
  if (timer === undefined) timer = setInterval(tick, POLL_MS)
  else if (checks.size === 1) timer.ref()
  return () => {
    if (checks.delete(check) && checks.size === 0) timer?.unref()
  }
}

function tick(): void {
  if (checks.size === 0) {
    clearInterval(timer)
    timer = undefined
    return
  }
  // A copy: a check may end its reservation (and so remove itself) or start another.
  for (const check of [...checks]) check()
}
