import { mkdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import type { BenchReport } from '../results.ts'

/**
 * Writes `latest.json` and a timestamped copy (`results-2026-11-21T08-30-00Z.json`) into `dir`.
 * Returns the two file names.
 */
export async function writeJson(report: BenchReport, dir: string): Promise<[string, string]> {
  await mkdir(dir, { recursive: true })
  const text = `${JSON.stringify(report, null, 2)}\n`
  const stamp = report.meta.date.replace(/\.\d+Z$/, 'Z').replaceAll(':', '-')
  const copy = `results-${stamp}.json`
  await writeFile(join(dir, 'latest.json'), text)
  await writeFile(join(dir, copy), text)
  return ['latest.json', copy]
}
