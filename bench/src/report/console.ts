import type { BenchReport } from '../results.ts'
import { type Claim, checkClaims, claimMark } from './claims.ts'
import { cpuViews } from './cpu-view.ts'
import { textTable } from './format.ts'
import { checkIssue10Claims, checkIssue11Claims, mismatchBanner } from './issue-claims.ts'
import { realisticViews } from './realistic-view.ts'
import { checkRequestClaims, requestViews } from './request-view.ts'
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
 * The summary printed at the end of a run: every grid, the large flush, concurrency, CPU side by side,
 * the realistic workload, the headline cell, and the claims of issues 5, 10 and 11 (FAIL shown as is).
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
    ...block(headlineView(report)),
    ...claimsBlock('Headline targets (2 ms, 10 tables x 1 row)', checkClaims(report)),
    ...claimsBlock('Realistic-mix targets (20 ms, cold pools)', checkIssue10Claims(report)),
    ...claimsBlock('Request targets (20 ms, load a graph, change it, flush)', checkRequestClaims(report)),
    ...claimsBlock('CPU, concurrency and large-flush targets', checkIssue11Claims(report)),
    ...(banner ? [banner, ''] : []),
  ].join('\n')
}
