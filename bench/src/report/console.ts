import type { BenchReport } from '../results.ts'
import { checkConduitTargets, conduitViews } from './conduit-view.ts'
import { cpuViews } from './cpu-view.ts'
import { textTable } from './format.ts'
import { checkHeadlineTargets, type TargetCheck, targetMark } from './headline-targets.ts'
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

function targetsBlock(title: string, checks: readonly TargetCheck[]): string[] {
  return [
    title,
    textTable(
      ['result', 'target', 'numbers'],
      checks.map((c) => [targetMark(c), c.text, c.detail]),
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
    ...targetsBlock('Headline targets (2 ms, 10 tables x 1 row)', checkHeadlineTargets(report)),
    ...targetsBlock('Realistic-mix targets (20 ms, cold pools)', checkRealisticTargets(report)),
    ...targetsBlock('Request targets (20 ms, load a graph, change it, flush)', checkRequestTargets(report)),
    ...targetsBlock(
      'Conduit targets (20 ms, four requests of the Conduit example)',
      checkConduitTargets(report),
    ),
    ...targetsBlock('CPU, concurrency and large-flush targets', checkCpuConcurrencyLargeTargets(report)),
    ...(banner ? [banner, ''] : []),
  ].join('\n')
}
