import type { BenchReport } from '../results.ts'
import { checkConduitTargets, conduitViews } from './conduit-view.ts'
import { cpuViews } from './cpu-view.ts'
import { duration, markdownTable } from './format.ts'
import { checkHeadlineTargets, type TargetCheck, targetMark } from './headline-targets.ts'
import { realisticViews } from './realistic-view.ts'
import { checkRequestTargets, requestViews } from './request-view.ts'
import { seedView } from './seed.ts'
import { checkCpuConcurrencyLargeTargets, checkRealisticTargets, mismatchBanner } from './targets.ts'
import { concurrencyView, headlineView, largeView, matrixViews, rttView, type View } from './views.ts'

function section(view: View | undefined, level = '##'): string[] {
  if (!view) return []
  const missing = view.missing ?? []
  return [
    `${level} ${view.title}`,
    '',
    markdownTable(view.headers, view.rows, view.align),
    ...(view.note ? ['', view.note] : []),
    ...(missing.length > 0 ? ['', ...missing.map((m) => `- ${m}`)] : []),
    '',
  ]
}

function targetsSection(title: string, checks: readonly TargetCheck[]): string[] {
  return [
    `## ${title}`,
    '',
    markdownTable(
      ['target', 'result', 'numbers'],
      checks.map((c) => [c.text, c.ok === false ? '**FAIL**' : targetMark(c), c.detail]),
    ),
    '',
  ]
}

/**
 * summary.md: the headline table, the targets (realistic mix, request, Conduit, CPU, concurrency and
 * large flush, headline) as PASS/FAIL tables, the realistic workload, the request scenario (its shop
 * and Conduit cells), CPU side by side (with tracing), every grid (time and client CPU), the charts and
 * how it was measured.
 */
export function renderMarkdown(report: BenchReport, charts: readonly string[]): string {
  const m = report.meta
  const banner = mismatchBanner(report)
  const unavailable = Object.entries(m.unavailable)
  return [
    '# pipeflush benchmark',
    '',
    `${m.date} · ${m.machine} · Node ${m.node} · PostgreSQL ${m.postgres} (${m.postgresProvider}) · toxiproxy ${m.toxiproxy} (${m.toxiproxyProvider}) · postgres.js ${m.postgresJs} · node-postgres ${m.nodePostgres} · MikroORM ${m.mikroOrm} · tinybench ${m.tinybench}${m.commit ? ` · commit ${m.commit}` : ''} · wall time ${duration(m.wallTimeSeconds)}`,
    '',
    ...(unavailable.length > 0
      ? ['**Series that could not run:**', '', ...unavailable.map(([s, r]) => `- \`${s}\`: ${r}`), '']
      : []),
    ...(banner ? [`**${banner}**`, ''] : []),
    ...section(headlineView(report)),
    ...targetsSection('Realistic-mix targets (20 ms, cold pools)', checkRealisticTargets(report)),
    ...targetsSection('Request targets (20 ms, load a graph, change it, flush)', checkRequestTargets(report)),
    ...targetsSection(
      'Conduit targets (20 ms, four requests of the Conduit example)',
      checkConduitTargets(report),
    ),
    ...targetsSection('CPU, concurrency and large-flush targets', checkCpuConcurrencyLargeTargets(report)),
    ...targetsSection('Headline targets (2 ms, 10 tables x 1 row)', checkHeadlineTargets(report)),
    ...realisticViews(report).flatMap((v) => section(v)),
    ...requestViews(report).flatMap((v) => section(v)),
    ...conduitViews(report).flatMap((v) => section(v)),
    ...cpuViews(report).flatMap((v) => section(v)),
    ...charts.flatMap((c) => [`![${c}](${c})`, '']),
    ...section(rttView(report)),
    ...matrixViews(report).flatMap((v) => section(v, '###')),
    ...matrixViews(report, 'cpu').flatMap((v) => section(v, '###')),
    ...section(largeView(report)),
    ...section(concurrencyView(report)),
    ...section(seedView(report)),
    '## How this was measured',
    '',
    '- Each series writes the same unit of work: `rowsPerTable` new rows in each of N tables',
    '  `(id bigint identity primary key, v text)`, in one transaction; tables are emptied between cells.',
    '- Latency: a toxiproxy `latency` toxic on the downstream stream (server to client), as in the seed',
    '  benchmark. RTT = median of `select 1` through the same proxy, measured in this run at each latency.',
    '- Each cell opens a fresh client (1 connection): its first flush is the **cold** figure (statements not',
    '  prepared yet); then untimed warm-up flushes; then tinybench samples warm flushes until both the',
    '  minimum sample count and the time budget are reached. Median and p95 of those samples.',
    '- Round trips are counted at the socket (a write after data came back), not with a clock: the test',
    "  kit's counter on every connection (postgres.js `socket`, node-postgres `stream`), one per connection.",
    '- Client CPU per flush: `process.cpuUsage()` (user + system) of this process over the timed flushes only.',
    '- Realistic workload: mixed units of work (seeded PRNG) on a small shop schema, from cold pools, in',
    '  sequence and four at a time; flush wall time in RTTs, socket round trips per flush beside the reports.',
    '- Request: a read-modify-write request (load a customer with its purchases, lines and products; change',
    '  rows; create rows; flush) one after another on a warm client; the whole request by the clock, round',
    '  trips at the socket (the load and the flush apart).',
    '- Conduit: four requests of the Conduit example (feed, article page, create article, favorite), each a',
    '  unit of work on its seeded tables, one after the other on a warm client; each request by the clock,',
    '  round trips at the sockets of all its connections.',
    '- Ratios: `vs raw-sequential` = raw-sequential median / series median (higher is faster);',
    '  `vs RTT` = series median / RTT (1.0x = the time of one round trip).',
    `- Options: \`${JSON.stringify(m.options)}\``,
    ...m.notes.map((n) => `- ${n}`),
    '',
  ].join('\n')
}
