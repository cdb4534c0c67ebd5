/**
 * The examples a README marks for the consumer test: a fenced block right after a
 * `<!-- consumer-test: <file> -->` line. The test runs them as they are printed in the README.
 */

/** One marked block. */
export interface ReadmeExample {
  /** `core-pg.ts`, `schema.sql`... */
  readonly file: string
  readonly code: string
  /** Where it was found, for messages. */
  readonly from: string
}

const MARKED = /<!-- consumer-test: (\S+) -->\r?\n```[a-z]*\r?\n([\s\S]*?)```/g

/**
 * The marked blocks of the given READMEs. A file marked in two READMEs (the schema both show) must
 * have the same text in both.
 *
 * @example
 * readmeExamples([{ from: 'core', text }]) // [{ file: 'schema.sql', code: 'create table ...', from: 'core' }, ...]
 */
export function readmeExamples(
  readmes: readonly { readonly from: string; readonly text: string }[],
): ReadmeExample[] {
  const byFile = new Map<string, ReadmeExample>()
  for (const { from, text } of readmes) {
    for (const m of text.matchAll(MARKED)) {
      const file = m[1]!
      const code = m[2]!
      const seen = byFile.get(file)
      if (seen && seen.code !== code) {
        throw new Error(`${file} is marked in the READMEs of ${seen.from} and ${from} with different text`)
      }
      if (!seen) byFile.set(file, { file, code, from })
    }
  }
  return [...byFile.values()]
}

/**
 * What an example prints, from its own comments: each `console.log(...) // <text>` line prints one
 * line equal to `<text>`, where `...` stands for any text (timings). Returns one pattern per line.
 *
 * @example
 * expectedOutput("console.log(a, b) // 1 2, ...") // [/^1 2, .*$/]
 */
export function expectedOutput(code: string): RegExp[] {
  const out: RegExp[] = []
  for (const line of code.split('\n')) {
    if (!/^\s*console\.log\(/.test(line)) continue
    const m = /\) \/\/ (.+)$/.exec(line)
    if (!m)
      throw new Error(`an example's console.log has no // comment saying what it prints: ${line.trim()}`)
    const parts = m[1]!.split('...').map((p) => p.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
    out.push(new RegExp(`^${parts.join('.*')}$`))
  }
  return out
}

/** The `@pipeflush/*` packages an example imports, by folder (`core`, `kysely`, `testkit`). */
export function packagesUsed(code: string): string[] {
  return [...new Set([...code.matchAll(/from '@pipeflush\/([a-z]+)/g)].map((m) => m[1]!))]
}
