/**
 * Functions built once per table for what is done to each of its rows (decoding one read, copying one
 * for a snapshot), each column's name written into their code: V8 then stores and loads each
 * property through an inline cache of its own, where a loop over the column names goes through one
 * cache that has seen every name of every table (megamorphic: a lookup per value). What they run is
 * what the loop runs; only the names are written out.
 *
 * Where code may not be made from text (`--disallow-code-generation-from-strings`, some edge
 * runtimes), `fallback` is used instead: the same work, looped.
 *
 * @example
 * const copy = compiled(['Make'], 'return (row) => { const out = new Make(); out["id"] = row["id"]; return out }', [Row], loopCopy)
 */
export function compiled<F extends (...args: never[]) => unknown>(
  names: readonly string[],
  body: string,
  args: readonly unknown[],
  fallback: F,
): F {
  try {
    return new Function(...names, body)(...args) as F
  } catch (e) {
    if (e instanceof EvalError) return fallback
    throw e
  }
}

/** `name` as a JavaScript string literal, to name a property in generated code (any text is safe). */
export function propertyName(name: string): string {
  return JSON.stringify(name)
}
