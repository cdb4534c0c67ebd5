/**
 * Texts as the answers to pipeflush's own statements carry them: every column it reads is selected as
 * `text` (values, keys, the catalog, the session's settings), so a client's parser for the type text,
 * or a transform of every value, must give each text back as it is. One that changes them would make
 * reads wrong and every loaded value look changed, or the connect fail for a reason that is not it.
 */
const TEXT_SAMPLES: readonly string[] = [
  '',
  'x',
  '  padded  ',
  'MixedCase',
  'ISO, MDY',
  'on',
  't',
  '{"a":[1,2.5]}',
  '{1,NULL,"a b"}',
  '2024-01-01 00:00:00+00',
  '12345678901234567890',
  'x'.repeat(300),
]

/**
 * The first sample text `parse` does not give back as it is (`from` and `to`), or undefined when it
 * gives every one back. A parse that throws changes it (to undefined).
 *
 * @example
 * changedText((text) => text.trim()) // { from: '  padded  ', to: 'padded' }
 */
export function changedText(parse: (text: string) => unknown): { from: string; to: unknown } | undefined {
  for (const text of TEXT_SAMPLES) {
    let out: unknown
    try {
      out = parse(text)
    } catch {
      out = undefined
    }
    if (out !== text) return { from: text, to: out }
  }
  return undefined
}

/** A text as a message shows it: quoted, cut at 40 characters. */
export function shownText(value: unknown): string {
  if (typeof value !== 'string') return String(value)
  return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}...` : value)
}
