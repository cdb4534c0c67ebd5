import type { BenchReport, ResultRow } from '../results.ts'
import { readsOnly, SHOP_CELLS } from '../series/shop-cells.ts'
import { DRIVERS, type DriverName, seriesId } from '../series/types.ts'
import { ms, num, ratio } from './format.ts'
import type { TargetCheck } from './headline-targets.ts'

/** Microseconds, whole, from ms. */
const us = (v: number | null | undefined) =>
  v === null || v === undefined ? '-' : String(Math.round(v * 1000))

const REALISTIC_LATENCY = 20
const REALISTIC_POOL = 10

/** A target that cannot be checked: the run lacks the numbers. */
const notMeasured = (text: string, what: string): TargetCheck => ({
  text,
  ok: null,
  detail: `not measured in this run (${what})`,
})

/** The ok row of pipeflush-burst on `driver` matching `where`. */
function burstRow(
  report: BenchReport,
  driver: DriverName,
  where: (r: ResultRow) => boolean,
): ResultRow | undefined {
  return report.results.find(
    (r) => r.series === 'pipeflush-burst' && r.driver === driver && r.status === 'ok' && where(r),
  )
}

/**
 * Every pipeflush flush of the run checked against the socket: flushes whose report differs, over
 * the flushes checked (all scenarios but the concurrency run, whose flushes overlap on one counter).
 *
 * @example
 * reportCheck(report, 'pg') // { checked: 412, mismatches: 0 }
 */
export function reportCheck(
  report: BenchReport,
  driver?: DriverName,
): { checked: number; mismatches: number } {
  let checked = 0
  let mismatches = 0
  for (const r of report.results) {
    if (r.status !== 'ok' || !r.series.startsWith('pipeflush') || (driver && r.driver !== driver)) continue
    if (r.reportMismatches === null || r.reportMismatches === undefined) continue
    checked += r.samples + (r.scenario === 'matrix' || r.scenario === 'large' ? 1 : 0) // + the cold flush
    mismatches += r.reportMismatches
  }
  return { checked, mismatches }
}

/**
 * The realistic mix's targets, per driver: at 20 ms, from cold pools of 10, on the realistic mix,
 * pipeflush-burst in sequence p50 <= 1.1 RTT and p95 <= 1.5; four at a time p50 <= 1.2 and p95 <= 2.0;
 * and the report equals the socket count for every flush.
 */
export function checkRealisticTargets(report: BenchReport): TargetCheck[] {
  const checks: TargetCheck[] = []
  for (const driver of DRIVERS) {
    const name = seriesId('pipeflush-burst', driver)
    for (const [concurrency, p50, p95] of [
      [1, 1.1, 1.5],
      [4, 1.2, 2.0],
    ] as const) {
      const how = concurrency === 1 ? 'in sequence' : 'four at a time'
      const row = burstRow(
        report,
        driver,
        (r) =>
          r.scenario === 'realistic' && r.latencyMs === REALISTIC_LATENCY && r.concurrency === concurrency,
      )
      for (const [which, limit] of [
        ['p50', p50],
        ['p95', p95],
      ] as const) {
        const text = `${name}, realistic mix ${how} at ${REALISTIC_LATENCY} ms from cold pools of ${REALISTIC_POOL}: ${which} <= ${limit} RTT`
        const value = which === 'p50' ? row?.p50Rtt : row?.p95Rtt
        if (!row || value === null || value === undefined) {
          checks.push(notMeasured(text, `${name} realistic ${how} at ${REALISTIC_LATENCY} ms`))
          continue
        }
        const ms_ = which === 'p50' ? row.medianMs : row.p95Ms
        const pool = row.pool === REALISTIC_POOL ? '' : ` (pool of ${row.pool}, not ${REALISTIC_POOL})`
        checks.push({
          text,
          ok: row.pool === REALISTIC_POOL ? value <= limit : null,
          detail: `${num(value, 2)} RTT (${ms(ms_)} ms / RTT ${ms(row.rttMs)} ms, ${row.samples} flushes)${pool}`,
        })
      }
    }
    const { checked, mismatches } = reportCheck(report, driver)
    const text = `${name}: report.roundTrips equals the socket count for every flush (fresh pools included)`
    checks.push(
      checked === 0
        ? notMeasured(text, `no ${name} flush`)
        : {
            text,
            ok: mismatches === 0,
            detail: `${mismatches} of ${checked} flushes differ${mismatches > 0 ? ' !!!' : ''}`,
          },
    )
  }
  return checks
}

/** The most client CPU a flush may take against the raw driver sending its statements as one simple-protocol message (p50). */
const CPU_VS_SIMPLE = 1.6
/** The most client CPU the first flush of a new statement shape may take against the same flush repeated (p50s). */
const FIRST_VS_REPEATED = 5
/** The longest a 100,000-row insert flush may take against postgres.js's COPY of the same rows (median, wall clock). */
const LARGE_VS_COPY = 1.5

/**
 * The CPU, concurrency and large-flush targets, per driver: client CPU per flush <= 1.3x the raw driver sending the same
 * statements pipelined (10 x 1 and 5 x 10); in each CPU cell measured (10 x 1, 5 x 10 and the shop cells), client CPU
 * p50 per flush <= 1.6x the same statements in one simple-protocol message (raw-simple), and per read
 * batch (the shop `load` cell) <= 1.6x the raw driver sending the same messages; a new statement
 * shape's first flush <= 5x the same flush repeated (the `first` cell); 50 concurrent units on a
 * pool of 10 at 2 ms: flushes per second >= 0.85x pg-pipeline and >= 1.5x raw-promise-all; a 100,000-row insert
 * <= 1.5x COPY.
 */
export function checkCpuConcurrencyLargeTargets(report: BenchReport): TargetCheck[] {
  const checks: TargetCheck[] = []
  const other = (series: string, where: (r: ResultRow) => boolean) =>
    report.results.find((r) => r.series === series && r.status === 'ok' && where(r))
  for (const driver of DRIVERS) {
    const name = seriesId('pipeflush-burst', driver)
    for (const [tables, rows] of [
      [10, 1],
      [5, 10],
    ] as const) {
      const text = `${name}: client CPU per flush <= 1.3x raw-pipeline (${driver}), ${tables} tables x ${rows} ${rows === 1 ? 'row' : 'rows'}`
      const at = (r: ResultRow) => r.scenario === 'cpu' && r.tables === tables && r.rowsPerTable === rows
      const row = burstRow(report, driver, at)
      const raw = other('raw-pipeline', (r) => r.driver === driver && at(r))
      if (!row?.cpuVsRawPipeline || !raw)
        checks.push(notMeasured(text, `${name} and raw-pipeline side by side`))
      else
        checks.push({
          text,
          ok: row.cpuVsRawPipeline <= 1.3,
          detail: `${ms(row.cpuMs)} ms / ${ms(raw.cpuMs)} ms = ${ratio(row.cpuVsRawPipeline)}`,
        })
    }
    const cells: [string, (r: ResultRow) => boolean][] = [
      ...(
        [
          [10, 1],
          [5, 10],
        ] as const
      ).map(([tables, rows]): [string, (r: ResultRow) => boolean] => [
        `${tables} tables x ${rows} ${rows === 1 ? 'row' : 'rows'}`,
        (r) =>
          r.scenario === 'cpu' && r.cpuCell === undefined && r.tables === tables && r.rowsPerTable === rows,
      ]),
      ...SHOP_CELLS.filter((cell) => !readsOnly(cell)).map((cell): [string, (r: ResultRow) => boolean] => [
        `shop ${cell}`,
        (r) => r.scenario === 'cpu' && r.cpuCell === cell,
      ]),
    ]
    for (const [cell, at] of cells) {
      const text = `${name}: client CPU p50 per flush <= ${CPU_VS_SIMPLE}x raw-simple (${driver}), ${cell}`
      const row = burstRow(report, driver, at)
      const raw = other('raw-simple', (r) => r.driver === driver && at(r))
      if (!row?.cpuP50VsRawSimple || !raw) {
        if (report.results.some(at)) checks.push(notMeasured(text, `${name} and raw-simple side by side`))
        continue
      }
      const pipelined = other('raw-pipeline', (r) => r.driver === driver && at(r))
      checks.push({
        text,
        ok: row.cpuP50VsRawSimple <= CPU_VS_SIMPLE,
        detail: `${us(row.cpuP50Ms)} µs / ${us(raw.cpuP50Ms)} µs = ${ratio(row.cpuP50VsRawSimple)}; p95 ${us(row.cpuP95Ms)} / ${us(raw.cpuP95Ms)} µs; vs raw-pipeline p50 ${ratio(row.cpuP50VsRawPipeline)} (${us(pipelined?.cpuP50Ms)} µs)`,
      })
    }
    // A read batch against the raw driver sending the same messages: pipelined on pg (pipeflush names
    // its selects there), one simple-protocol message on postgres.js.
    for (const cell of SHOP_CELLS.filter(readsOnly)) {
      const same = driver === 'pg' ? 'raw-pipeline' : 'raw-simple'
      const text = `${name}: client CPU p50 per read batch <= ${CPU_VS_SIMPLE}x ${same} (${driver}, the same messages), shop ${cell}`
      const at = (r: ResultRow) => r.scenario === 'cpu' && r.cpuCell === cell
      const row = burstRow(report, driver, at)
      const raw = other(same, (r) => r.driver === driver && at(r))
      const vs = same === 'raw-pipeline' ? row?.cpuP50VsRawPipeline : row?.cpuP50VsRawSimple
      if (!vs || !raw) {
        if (report.results.some(at)) checks.push(notMeasured(text, `${name} and ${same} side by side`))
        continue
      }
      checks.push({
        text,
        ok: vs <= CPU_VS_SIMPLE,
        detail: `${us(row?.cpuP50Ms)} µs / ${us(raw.cpuP50Ms)} µs = ${ratio(vs)}; p95 ${us(row?.cpuP95Ms)} / ${us(raw.cpuP95Ms)} µs`,
      })
    }
    // What a statement shape costs the first time it is met (its texts and what it returns are made
    // then, and kept).
    const firstText = `${name}: client CPU of a new statement shape's first flush <= ${FIRST_VS_REPEATED}x the same flush repeated (p50s)`
    const first = burstRow(report, driver, (r) => r.scenario === 'cpu' && r.cpuCell === 'first')
    if (first?.cpuP50Ms && first.cpuRepeatedP50Ms) {
      const r = first.cpuP50Ms / first.cpuRepeatedP50Ms
      checks.push({
        text: firstText,
        ok: r <= FIRST_VS_REPEATED,
        detail: `${us(first.cpuP50Ms)} µs / ${us(first.cpuRepeatedP50Ms)} µs = ${ratio(r)} (${first.samples} shapes)`,
      })
    } else if (report.results.some((r) => r.scenario === 'cpu' && r.cpuCell === 'first'))
      checks.push(notMeasured(firstText, `${name}'s first-flush cell`))
    const conc = burstRow(report, driver, (r) => r.scenario === 'concurrency')
    for (const [series, factor] of [
      ['pg-pipeline', 0.85],
      ['raw-promise-all', 1.5],
    ] as const) {
      const text = `${name}: flushes/s >= ${factor}x ${series}, ${conc?.workers ?? 50} concurrent units on a pool of ${conc?.pool ?? 10} at ${conc?.latencyMs ?? 2} ms`
      const base = other(series, (r) => r.scenario === 'concurrency')
      if (!conc?.flushesPerSecond || !base?.flushesPerSecond)
        checks.push(notMeasured(text, `${name} or ${series}`))
      else {
        const r = conc.flushesPerSecond / base.flushesPerSecond
        checks.push({
          text,
          ok: r >= factor,
          detail: `${num(conc.flushesPerSecond, 0)} / ${num(base.flushesPerSecond, 0)} flushes/s = ${ratio(r)}`,
        })
      }
    }
    const large = (r: ResultRow) => r.scenario === 'large' && r.rowsPerTable === 100_000
    const big = burstRow(report, driver, large)
    const copy = other('copy', large)
    const text = `${name}: a 100,000-row insert flush <= ${LARGE_VS_COPY}x COPY of the same rows`
    if (!big?.medianMs || !copy?.medianMs) checks.push(notMeasured(text, `${name} or copy at 100,000 rows`))
    else {
      const r = big.medianMs / copy.medianMs
      checks.push({
        text,
        ok: r <= LARGE_VS_COPY,
        detail: `${ms(big.medianMs)} ms / ${ms(copy.medianMs)} ms = ${ratio(r)}`,
      })
    }
  }
  return checks
}

/** A loud line when some pipeflush report differed from the socket, else undefined. */
export function mismatchBanner(report: BenchReport): string | undefined {
  const { checked, mismatches } = reportCheck(report)
  if (mismatches === 0) return undefined
  return `!!! ${mismatches} of ${checked} pipeflush flush reports DIFFER from the round trips counted at the socket !!!`
}
