/**
 * The error the test kit throws when it cannot provide a piece (a database, a toxiproxy): it says
 * what was tried, in order, and how to fix it. Never a stack trace from deep inside a dependency.
 */
export class TestkitUnavailableError extends Error {
  readonly tried: readonly string[]
  readonly fix: readonly string[]

  constructor(piece: string, tried: readonly string[], fix: readonly string[], cause?: unknown) {
    const lines = [
      `pipeflush testkit: could not provide ${piece}.`,
      'Tried, in order:',
      ...tried.map((t, i) => `  ${i + 1}. ${t}`),
      'To fix, any one of:',
      ...fix.map((f) => `  - ${f}`),
    ]
    super(lines.join('\n'), cause === undefined ? undefined : { cause })
    this.name = 'TestkitUnavailableError'
    this.tried = tried
    this.fix = fix
  }
}

/** The message of any thrown value, on one line, without a stack. */
export function describeError(e: unknown): string {
  if (e instanceof Error) return e.message.split('\n')[0] ?? e.name
  return String(e)
}
