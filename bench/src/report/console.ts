import type { BenchReport } from '../results.ts'
import { checkClaims, claimMark } from './claims.ts'
import { textTable } from './format.ts'
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

/** The summary printed at the end of a run: headline cell, claims, every grid, large flush, concurrency. */
export function renderConsoleSummary(report: BenchReport): string {
  const claims = checkClaims(report)
  return [
    '',
    ...matrixViews(report).flatMap(block),
    ...block(largeView(report)),
    ...block(concurrencyView(report)),
    ...block(headlineView(report)),
    'Issue 5 claims',
    textTable(
      ['result', 'claim', 'numbers'],
      claims.map((c) => [claimMark(c), c.text, c.detail]),
    ),
    '',
  ].join('\n')
}
