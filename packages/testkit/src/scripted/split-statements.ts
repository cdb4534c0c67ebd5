/**
 * The statements of a simple-protocol Query text, split at its top-level semicolons as PostgreSQL's
 * lexer does (not inside quoted literals, `E''` strings, quoted identifiers, dollar quotes or comments),
 * each trimmed; statements holding nothing but whitespace and comments are left out.
 *
 * @example
 * splitStatements("begin; insert into t values ('a;b'); commit") // ['begin', "insert into t values ('a;b')", 'commit']
 */
export function splitStatements(text: string): string[] {
  return locateStatements(text).map((s) => s.text)
}

/** A statement of a Query text and the index of its first character in that text. */
export interface LocatedStatement {
  readonly text: string
  readonly start: number
}

/**
 * The statements of a Query text as {@link splitStatements} gives them, each with where it starts in
 * the text (to give an error's position in the whole text, as PostgreSQL does).
 *
 * @example
 * locateStatements('begin; select 1') // [{ text: 'begin', start: 0 }, { text: 'select 1', start: 7 }]
 */
export function locateStatements(text: string): LocatedStatement[] {
  const out: LocatedStatement[] = []
  let start = 0
  let i = 0
  const n = text.length
  while (i < n) {
    const c = text[i]!
    const next = text[i + 1]
    if (c === ';') {
      push(out, text.slice(start, i), start)
      start = ++i
    } else if (c === "'") {
      const escapes = i > 0 && /[eE]/.test(text[i - 1]!) && !/[\w$]/.test(text[i - 2] ?? ' ')
      i = skipQuoted(text, i + 1, "'", escapes)
    } else if (c === '"') {
      i = skipQuoted(text, i + 1, '"', false)
    } else if (c === '-' && next === '-') {
      const end = text.indexOf('\n', i)
      i = end < 0 ? n : end + 1
    } else if (c === '/' && next === '*') {
      i = skipBlockComment(text, i)
    } else if (c === '$') {
      i = skipDollarQuote(text, i)
    } else {
      i++
    }
  }
  push(out, text.slice(start), start)
  return out
}

/**
 * `text` without its comments and with every run of whitespace outside literals made one space,
 * trimmed: the form handlers' texts and patterns are compared in.
 *
 * @example
 * normalizeSql('  select\n  1 -- one') // 'select 1'
 */
export function normalizeSql(text: string): string {
  let out = ''
  let i = 0
  const n = text.length
  let space = false
  const emit = (s: string) => {
    if (space && out !== '') out += ' '
    space = false
    out += s
  }
  while (i < n) {
    const c = text[i]!
    const next = text[i + 1]
    if (/\s/.test(c)) {
      space = true
      i++
    } else if (c === '-' && next === '-') {
      const end = text.indexOf('\n', i)
      i = end < 0 ? n : end + 1
      space = true
    } else if (c === '/' && next === '*') {
      i = skipBlockComment(text, i)
      space = true
    } else if (c === "'" || c === '"') {
      const escapes = c === "'" && i > 0 && /[eE]/.test(text[i - 1]!) && !/[\w$]/.test(text[i - 2] ?? ' ')
      const end = skipQuoted(text, i + 1, c, escapes)
      emit(text.slice(i, end))
      i = end
    } else if (c === '$') {
      const end = skipDollarQuote(text, i)
      emit(text.slice(i, end))
      i = end
    } else {
      emit(c)
      i++
    }
  }
  return out
}

function push(out: LocatedStatement[], text: string, start: number): void {
  if (normalizeSql(text) === '') return
  out.push({ text: text.trim(), start: start + (text.length - text.trimStart().length) })
}

/** Past the closing `quote` of a literal or identifier whose content starts at `i`. */
function skipQuoted(text: string, i: number, quote: string, backslashEscapes: boolean): number {
  const n = text.length
  while (i < n) {
    const c = text[i]!
    if (backslashEscapes && c === '\\') {
      i += 2
    } else if (c === quote) {
      if (text[i + 1] === quote) i += 2
      else return i + 1
    } else {
      i++
    }
  }
  return n
}

/** Past a `/* ... *\/` comment starting at `i` (they nest in PostgreSQL). */
function skipBlockComment(text: string, i: number): number {
  let depth = 0
  const n = text.length
  while (i < n) {
    if (text[i] === '/' && text[i + 1] === '*') {
      depth++
      i += 2
    } else if (text[i] === '*' && text[i + 1] === '/') {
      depth--
      i += 2
      if (depth === 0) return i
    } else {
      i++
    }
  }
  return n
}

/** Past a dollar-quoted string starting at `i` (`$$...$$`, `$tag$...$tag$`), or past a `$n` parameter. */
function skipDollarQuote(text: string, i: number): number {
  if (i > 0 && /[\w$]/.test(text[i - 1]!)) return i + 1 // inside an identifier (`a$b`)
  const tag = /^\$([A-Za-z_\u0080-\uffff][\w\u0080-\uffff]*)?\$/.exec(text.slice(i, i + 64))
  if (tag === null) return i + 1
  const end = text.indexOf(tag[0], i + tag[0].length)
  return end < 0 ? text.length : end + tag[0].length
}
