// npm run bench [-- --quick | --help]: em.flush with and without pipelining beside the peers, as
// tables, JSON and SVG charts. See options.ts for the flags and bench/README.md for the method.
import { mkdir, writeFile } from 'node:fs/promises'
import os from 'node:os'
import { join, relative, resolve } from 'node:path'
import { cleanupAll } from '@pipeflush/testkit'
import { CONDUIT_SERIES } from './conduit/series.ts'
import { startBenchEnv } from './env/services.ts'
import { buildPlan, countSteps, cpuWorks } from './matrix.ts'
import { serverCpu } from './measure/cpu.ts'
import { profileSeries, profileShopCells } from './measure/profile.ts'
import { gitCommit, machineInfo, packageVersion } from './meta.ts'
import { type BenchOptions, parseOptions } from './options.ts'
import { REALISTIC_SERIES } from './realistic/series.ts'
import { writeCharts } from './report/chart.ts'
import { renderConsoleSummary } from './report/console.ts'
import { duration } from './report/format.ts'
import { writeJson } from './report/json.ts'
import { renderMarkdown } from './report/markdown.ts'
import { createProgress } from './report/progress.ts'
import { REQUEST_SERIES } from './request/series.ts'
import { type BenchReport, withRatios } from './results.ts'
import { runPlan, timedOut } from './run.ts'
import { selectSeries } from './series/index.ts'
import { postgresJsSocket } from './series/postgres-js-client.ts'
import { USAGE } from './usage.ts'

async function main(argv: readonly string[]): Promise<number> {
  let options: BenchOptions
  try {
    options = parseOptions(argv)
  } catch (e) {
    console.error(`${e instanceof Error ? e.message : e}\n\n${USAGE}`)
    return 2
  }
  if (options.help) {
    console.log(USAGE)
    return 0
  }
  postgresJsSocket.noDelay = options.tcpNoDelay
  const series = selectSeries(options.series, options.drivers)
  const realistic = REALISTIC_SERIES.filter(
    (s) => (!options.series || options.series.includes(s.name)) && options.drivers.includes(s.driver),
  )
  const request = REQUEST_SERIES.filter(
    (s) => (!options.series || options.series.includes(s.name)) && options.drivers.includes(s.driver),
  )
  const conduit = CONDUIT_SERIES.filter(
    (s) => (!options.series || options.series.includes(s.name)) && options.drivers.includes(s.driver),
  )
  const started = performance.now()
  const date = new Date().toISOString()
  const progress = createProgress()

  const unavailable = new Map<string, string>()
  for (const s of [...series, ...realistic, ...request, ...conduit]) {
    const reason = await s.unavailableReason()
    if (reason && !unavailable.has(s.id)) {
      unavailable.set(s.id, reason)
      progress.log(`${s.id}: ${reason}`)
    }
  }
  const plan = buildPlan(options, series, realistic, request, conduit)
  progress.log(
    `pipeflush bench${options.quick ? ' --quick' : ''}: ${countSteps(plan)} measurements, ${series.length} series, latencies ${plan.map((g) => g.latencyMs).join('/')} ms`,
  )

  const outDir = resolve(options.out)
  await mkdir(outDir, { recursive: true })
  const env = await startBenchEnv((line) => progress.log(line))
  serverCpu.enabled = env.postgres.provider === 'embedded'
  let run: Awaited<ReturnType<typeof runPlan>>
  const profiles: string[] = []
  try {
    run = await runPlan(plan, env, options, unavailable, progress)
    const profiled = series.filter((s) => s.name === 'pipeflush-burst' && !unavailable.has(s.id))
    if (options.profile && profiled.length > 0) {
      progress.log(`profiling ${profiled.map((s) => s.id).join(', ')} at ${options.cpuLatency} ms`)
      await env.proxy.setLatency(options.cpuLatency)
      const flushes = Math.max(100, Math.round(options.cpuFlushes / 3))
      const works = cpuWorks(options)
      const plain = works.filter((w) => !w.shop)
      if (plain.length > 0)
        profiles.push(...(await profileSeries(profiled, env.target, plain, flushes, outDir)))
      profiles.push(...(await profileShopCells(profiled, env.target, works, flushes, outDir)))
    }
  } finally {
    progress.end()
    await env.stop()
  }
  const report: BenchReport = {
    meta: {
      date,
      ...machineInfo(),
      node: process.versions.node,
      postgres: env.postgres.version,
      postgresProvider: env.postgres.provider,
      toxiproxy: env.toxiproxy.version,
      toxiproxyProvider: env.toxiproxy.provider,
      postgresJs: packageVersion('postgres'),
      nodePostgres: packageVersion('pg'),
      mikroOrm: packageVersion('@mikro-orm/core'),
      tinybench: packageVersion('tinybench'),
      commit: gitCommit(),
      wallTimeSeconds: Math.round((performance.now() - started) / 100) / 10,
      options: {
        ...options,
        help: undefined,
        out: relative(process.cwd(), outDir) || '.',
        loadAverage: os.loadavg().map((l) => Math.round(l * 100) / 100),
      },
      unavailable: Object.fromEntries(unavailable),
      serverCpu: serverCpu.enabled
        ? 'read from /proc/<backend pid>/stat (utime + stime, clock ticks)'
        : `not read (PostgreSQL provider ${env.postgres.provider}: its process ids are not this machine's)`,
      notes: [
        'Every process (benchmark, PostgreSQL, toxiproxy) runs on the same machine; latencies are injected, not real network.',
        'pipeflush round trips above a whole number come from id-block fetches (+1 round trip on the flushes that need one; `idFetches` counts them).',
        'copy: COPY waits twice; the counter sees 3 because postgres.js writes a CopyFail after the COPY completed (ignored by the server).',
        'pipeflush sends an insert of 1,000 rows or more as COPY (its `copyRows` default): on node-postgres the data goes in the same write as the flush, on postgres.js when the server asks for it (one round trip more). A flush of such inserts only, into tables whose keys a sequence fills, is planned column by column.',
        'Client CPU (`cpuMs`) is this process (process.cpuUsage, user + system) over the timed flushes only, divided by their number; it includes the round-trip counter on the sockets, which every series has.',
        options.tcpNoDelay
          ? 'Every socket had TCP_NODELAY: pipeflush sets it on postgres.js connections, node-postgres on its own, the bench on the raw postgres.js series. Run with --nagle for the raw postgres.js default.'
          : 'The raw postgres.js series used its default (Nagle on, no TCP_NODELAY); pipeflush and node-postgres set TCP_NODELAY. The socket counter counts writes, so a write held back by Nagle is not a counted round trip but does cost time; this run used --nagle.',
      ],
    },
    rtt: run.rtt,
    results: withRatios(run.results),
  }
  const files = await writeJson(report, outDir)
  const charts = options.charts ? await writeCharts(report, outDir) : []
  await writeFile(join(outDir, 'summary.md'), renderMarkdown(report, charts))
  console.log(renderConsoleSummary(report))
  const shown = relative(process.cwd(), outDir) || '.'
  console.log(
    `Wrote ${[...files, 'summary.md', ...charts, ...profiles].map((f) => join(shown, f)).join(', ')} in ${duration(report.meta.wallTimeSeconds)}.`,
  )
  return 0
}

try {
  process.exitCode = await main(process.argv.slice(2))
} catch (e) {
  console.error(e instanceof Error ? (e.stack ?? e.message) : e)
  await cleanupAll()
  process.exitCode = 1
}
// An abandoned measurement may keep sockets open forever: end anyway, everything is written.
if (timedOut) process.exit()
