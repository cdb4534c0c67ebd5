import type { BenchReport } from '../results.ts'
import { type Claim, checkHeadlineTargets, claimMark } from './claims.ts'
import { checkConduitTargets, conduitViews } from './conduit-view.ts'
import { cpuViews } from './cpu-view.ts'
import { textTable } from './format.ts'
import { realisticViews } from './realistic-view.ts'
import { checkRequestTargets, requestViews } from './request-view.ts'
import { checkCpuConcurrencyLargeTargets, checkRealisticTargets, mismatchBanner } from './targets.ts'
import { concurrencyView, headlineView, largeView, matrixViews, type View } from './views.ts'

function block(view: View | undefined): string[] {
  if (!view) return []
  return [
    view.title,
    textTable(view.headers, view.rows, view.align),
    ...(view.missing ?? []).map((m) => `  ${m}`),
    '',
  ]
}

function claimsBlock(title: string, claims: readonly Claim[]): string[] {
  return [
    title,
    textTable(
      ['result', 'claim', 'numbers'],
      claims.map((c) => [claimMark(c), c.text, c.detail]),
    ),
    '',
  ]
}

/**
 * The summary printed at the end of a run: every grid, the large flush, concurrency, CPU side by side
 * (with tracing), the realistic workload, the request scenario (its shop and Conduit cells), the
 * headline cell, and the targets (headline, realistic mix, request, Conduit, CPU, concurrency and large
 * flush; FAIL shown as is).
 */
export function renderConsoleSummary(report: BenchReport): string {
  const banner = mismatchBanner(report)
  return [
    '',
    ...(banner ? [banner, ''] : []),
    ...matrixViews(report).flatMap(block),
    ...block(largeView(report)),
    ...block(concurrencyView(report)),
    ...cpuViews(report).flatMap(block),
    ...realisticViews(report).flatMap(block),
    ...requestViews(report).flatMap(block),
    ...conduitViews(report).flatMap(block),
    ...block(headlineView(report)),
    ...claimsBlock('Headline targets (2 ms, 10 tables x 1 row)', checkHeadlineTargets(report)),
    ...claimsBlock('Realistic-mix targets (20 ms, cold pools)', checkRealisticTargets(report)),
    ...claimsBlock('Request targets (20 ms, load a graph, change it, flush)', checkRequestTargets(report)),
    ...claimsBlock(
      'Conduit targets (20 ms, four requests of the Conduit example)',
      checkConduitTargets(report),
    ),
    ...claimsBlock('CPU, concurrency and large-flush targets', checkCpuConcurrencyLargeTargets(report)),
    ...(banner ? [banner, ''] : []),
  ].join('\n')
}
