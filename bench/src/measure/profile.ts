import { writeFile } from 'node:fs/promises'
import { Session } from 'node:inspector/promises'
import { join } from 'node:path'
import type { Series, Target } from '../series/types.ts'
import type { Work } from '../workload.ts'

/** `pipeflush-burst (pg)` -> `pipeflush-burst-pg`. */
function slug(id: string): string {
  return id.replace(/[^a-z0-9]+/gi, '-').replace(/-+$/, '')
}

/**
 * Writes a V8 CPU profile (`<series>.cpuprofile`, open it in Chrome DevTools or speedscope) of each of
 * `series` flushing each of `works` `flushes` times after a warm-up, through the inspector API of this
 * process. Returns the file names.
 *
 * @example
 * await profileSeries(pipeflushBurst, target, CPU_WORK, 500, 'bench/results') // ['profile-pipeflush-burst-pg.cpuprofile', ...]
 */
export async function profileSeries(
  series: readonly Series[],
  target: Target,
  works: readonly Work[],
  flushes: number,
  dir: string,
): Promise<string[]> {
  const session = new Session()
  session.connect()
  const written: string[] = []
  try {
    await session.post('Profiler.enable')
    await session.post('Profiler.setSamplingInterval', { interval: 100 })
    for (const s of series) {
      const client = await s.open(target, { pool: 1 })
      try {
        for (const work of works) for (let i = 0; i < 20; i++) await client.flush(work)
        await session.post('Profiler.start')
        for (const work of works) for (let i = 0; i < flushes; i++) await client.flush(work)
        const { profile } = await session.post('Profiler.stop')
        const file = `profile-${slug(s.id)}.cpuprofile`
        await writeFile(join(dir, file), JSON.stringify(profile))
        written.push(file)
      } finally {
        await client.close()
      }
    }
  } finally {
    session.disconnect()
  }
  return written
}
