/**
 * The round trip time through the proxy: the median of `samples` `select 1` on a connection opened
 * first (its opening not counted), in ms. A request's time is shown in these.
 *
 * @example
 * const rttMs = await measureRtt(admin.query) // about 20.8 at --latency 20
 */
export async function measureRtt(query: (text: string) => Promise<unknown>, samples = 9): Promise<number> {
  await query('select 1')
  const times: number[] = []
  for (let i = 0; i < samples; i++) {
    const started = performance.now()
    await query('select 1')
    times.push(performance.now() - started)
  }
  times.sort((a, b) => a - b)
  return times[Math.floor(times.length / 2)]!
}
