// Where a read batch's client CPU goes on postgres.js, phase by phase, beside the raw driver sending
// the same message: `process.cpuUsage` read where pipeflush calls into postgres.js (`sql.reserve()`,
// the reserved connection's `unsafe()`, its answer, `release()`), nothing in pipeflush patched. The
// phases of the bookstore's graph load (`em.load('author', 1, { with })` on a fresh fork):
//   plan     the load called -> `sql.reserve()` called (the selects planned, the connection asked for);
//   reserve  `sql.reserve()` called -> its connection handed over (postgres.js's own work);
//   prepare  the connection handed over -> `unsafe()` called (the session, the message's text);
//   send     `unsafe()` called -> its answer handed over (postgres.js writing, reading, parsing);
//   settle   the answer handed over -> the load resolved (decoding, tracking, linking the rows,
//            the connection released).
// The raw driver (`sql.reserve()`, `unsafe()` of the same message, `release()`) beside, load by load,
// marked alike. Marking costs a few µs a mark on both sides: compare phases, and take the ratio of
// record from `read-pair-cpu.ts`, which marks nothing.
//
//   npx node --conditions=@pipeflush/source bench/tools/pjs-read-phases.ts [--loads 2000]
import { parseArgs } from 'node:util'
import { EntityManager } from '@pipeflush/core'
import { createDatabase, startPostgres } from '@pipeflush/testkit'
import postgres from 'postgres'
import { DDL, WITH } from './bookstore-graph.ts'

const { values } = parseArgs({ options: { loads: { type: 'string', default: '2000' } } })
const loads = Number(values.loads)
const median = (a: readonly number[]) => [...a].sort((x, y) => x - y)[a.length >> 1]!
const cpu = () => {
  const u = process.cpuUsage()
  return u.user + u.system
}

type Kind = 'reserve' | 'reserved' | 'query' | 'answer' | 'release'
let marks: { kind: Kind; cpu: number }[] | undefined
const mark = (kind: Kind) => marks?.push({ kind, cpu: cpu() })

/** Marks the calls pipeflush (or the raw side) makes into `sql`, and its answers. */
function marked(sql: postgres.Sql): postgres.Sql {
  const reserve = sql.reserve.bind(sql)
  const seen = new WeakSet<object>()
  ;(sql as { reserve: unknown }).reserve = () => {
    mark('reserve')
    return reserve().then((r) => {
      mark('reserved')
      if (!seen.has(r)) {
        seen.add(r)
        const unsafe = r.unsafe.bind(r) as (...a: unknown[]) => Promise<unknown>
        ;(r as { unsafe: unknown }).unsafe = (...a: unknown[]) => {
          mark('query')
          const q = unsafe(...a)
          // The query object is returned as is (its methods are used); its answer is marked.
          q.then(
            () => mark('answer'),
            () => mark('answer'),
          )
          return q
        }
        const release = r.release.bind(r)
        ;(r as { release: unknown }).release = () => {
          mark('release')
          release()
        }
      }
      return r
    })
  }
  return sql
}

const PHASES = ['plan', 'reserve', 'prepare', 'send', 'settle'] as const
function phases(start: number, m: readonly { kind: Kind; cpu: number }[], end: number) {
  const at = (k: Kind) => m.find((x) => x.kind === k)?.cpu
  const [a, b, c, d] = [at('reserve'), at('reserved'), at('query'), at('answer')]
  if (a === undefined || b === undefined || c === undefined || d === undefined) return undefined
  return { plan: a - start, reserve: b - a, prepare: c - b, send: d - c, settle: end - d }
}

const server = await startPostgres()
try {
  const url = await createDatabase(server.url, 'pf_pjs_read_phases')
  const admin = postgres(url, { max: 1, onnotice: () => {} })
  await admin.unsafe(DDL)
  await admin.end()
  const sql = marked(postgres(url, { max: 1, onnotice: () => {} }))
  const raw = marked(postgres(url, { max: 1, onnotice: () => {} }))
  try {
    const root = await EntityManager.connect(sql)
    // The message pipeflush sends, captured once.
    let text = ''
    const originalReserve = sql.reserve
    ;(sql as { reserve: unknown }).reserve = () =>
      originalReserve().then((r) => {
        const u = r.unsafe
        ;(r as { unsafe: unknown }).unsafe = (t: string, ...rest: unknown[]) => {
          text = t
          return (u as (...a: unknown[]) => unknown)(t, ...rest)
        }
        return r
      })
    await root.fork().load('author', 1, { with: WITH })
    ;(sql as { reserve: unknown }).reserve = originalReserve
    if (text === '') throw new Error('no message captured')
    const load = () => root.fork().load('author', 1, { with: WITH })
    const rawLoad = async () => {
      const r = await raw.reserve()
      try {
        await r.unsafe(text)
      } finally {
        r.release()
      }
    }
    for (let i = 0; i < 300; i++) {
      await load()
      await rawLoad()
    }
    const ours: Record<string, number[]> = Object.fromEntries([...PHASES, 'whole'].map((p) => [p, []]))
    const theirs: Record<string, number[]> = Object.fromEntries([...PHASES, 'whole'].map((p) => [p, []]))
    for (let i = 0; i < loads; i++) {
      for (const [run, into] of [
        [load, ours],
        [rawLoad, theirs],
      ] as const) {
        const start = cpu()
        marks = []
        await run()
        const end = cpu()
        const split = phases(start, marks, end)
        into.whole!.push(end - start)
        if (split) for (const p of PHASES) into[p]!.push(split[p])
        marks = undefined
      }
    }
    const line = (name: string, r: Record<string, number[]>) =>
      `${name.padEnd(10)} ${median(r.whole!)} µs (${PHASES.map((p) => `${p} ${median(r[p]!)}`).join(', ')})`
    console.log(line('pipeflush', ours))
    console.log(line('raw', theirs))
  } finally {
    await sql.end()
    await raw.end()
  }
} finally {
  await server.stop()
}
