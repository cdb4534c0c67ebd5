import { writeFile } from 'node:fs/promises'
import { Session } from 'node:inspector/promises'
import { join } from 'node:path'
import { openDriver } from '../series/driver-client.ts'
import { FIXTURE_UNITS } from '../series/shop-cells.ts'
import { pipeflushShop } from '../series/shop-pipeflush.ts'
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

/**
 * Writes a V8 CPU profile (`profile-<series>-<cell>.cpuprofile`) of pipeflush-burst's `em.flush()` in
 * each shop cell of `works` on each driver of `series`: after 20 flushes to warm up, `flushes` units
 * (at most one per fixture slot) are made first (loaded, created, changed), then the profiler runs
 * over their flushes only. Returns the file names.
 *
 * @example
 * await profileShopCells(pipeflushBurst, target, [shopWork('mix')], 500, 'bench/results') // ['profile-pipeflush-burst-pg-mix.cpuprofile', ...]
 */
export async function profileShopCells(
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
    for (const s of series)
      for (const work of works) {
        if (!work.shop) continue
        const c = await openDriver(s.driver, target.url, 1)
        try {
          const shop = pipeflushShop(c)
          for (let i = 0; i < 20; i++) await (await shop.prepare(work)).flush()
          const ems = []
          for (let i = 0; i < Math.min(flushes, FIXTURE_UNITS - 20); i++) ems.push(await shop.prepare(work))
          await session.post('Profiler.start')
          for (const em of ems) await em.flush()
          const { profile } = await session.post('Profiler.stop')
          const file = `profile-${slug(s.id)}-${work.shop}.cpuprofile`
          await writeFile(join(dir, file), JSON.stringify(profile))
          written.push(file)
        } finally {
          await c.close()
        }
      }
  } finally {
    session.disconnect()
  }
  return written
}
