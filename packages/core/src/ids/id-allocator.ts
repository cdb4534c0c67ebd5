import { errors } from '../errors.ts'
import { sequenceOwner } from '../schema/owned-sequence.ts'
import { quoteTextArrayLiteral } from '../values/index.ts'
import { IdQueue, type IdRun } from './id-runs.ts'

/**
 * The one query that fetches ids for every sequence a flush needs, sequence names and counts written
 * as quoted literals (no parameters).
 *
 * Every sequence a flush needs in one query: one round trip, whatever the number of sequences.
 */
export function fetchIdsSql(
  sequences: readonly string[],
  counts: readonly number[],
  options: { readonly usableOnly?: boolean; readonly needed?: readonly number[] } = {},
): string {
  for (const n of counts) {
    if (!Number.isSafeInteger(n) || n < 1)
      throw errors.internal('fetchIdsSql', `an id count must be a positive integer, not ${n}`)
  }
  const needed = counts.map((n, i) => Math.min(n, options.needed?.[i] ?? 0))
  for (const m of needed) {
    if (!Number.isSafeInteger(m) || m < 0)
      throw errors.internal('fetchIdsSql', `a needed id count must be a natural integer, not ${m}`)
  }
  // A sequence named for its column (see `ownedSequence`) is the one the server finds from the column,
  // else the one of that name: the others' names are resolved as they are.
  const owners = sequences.map(sequenceOwner)
  const owned = owners.some((o) => o !== undefined)
  const resolved = owned
    ? 'coalesce(pg_catalog.pg_get_serial_sequence(u.t, u.c)::regclass, u.seq::regclass)'
    : 'u.seq::regclass'
  const checked = owned ? resolved : 'u.seq'
  // A prefetch skips sequences the session may not use (a flush would fail there with the server's error).
  const usable = options.usableOnly
    ? ` where has_sequence_privilege(${checked}, 'USAGE') or has_sequence_privilege(${checked}, 'UPDATE')`
    : ''
  // One row per sequence. Its ids, drawn in order into an array, come back as their first and their
  // count when they are consecutive (a sequence of increment 1 that does not cycle, strictly increasing
  // in one session, spanning exactly as many values as it drew: nobody drew in between), else joined
  // by commas in the order drawn: either is far cheaper to answer and to read than a row per id, and
  // the first saved a sixth of the server's time for 100,000 ids. Each name is resolved to its
  // sequence once (`offset 0` keeps the planner from pulling the cast into the per-id subquery):
  // resolving it for every id took half the server's time. The ids are drawn into an array by an
  // array constructor, in the order its subquery draws them: an aggregate sorted its input first (and
  // took a quarter more of the server's time for 100,000 ids).
  // What the sequence has left is read in the same statement, so that no fetch calls nextval past its
  // MAXVALUE (MINVALUE when it counts down): that fails the statement, and the values drawn before the
  // failure are lost to every client. A sequence that cycles has no end. Its last value comes from
  // `pg_sequence_last_value`, null when the role may not read it or when the sequence gave no value
  // since it was created or set with `is_called` false: then one value is drawn first (nextval cannot
  // fail there, as that value is the sequence's own) and what is left is counted from it. Values a
  // session caches (CACHE) are below that last value: counted as drawn, they leave the count low, never
  // high. The block (`n`) is drawn when that many are left, else only what the flush needs (`m`: none
  // for a prefetch or a top-up), else nothing: the last values of a sequence are not taken into a pool
  // where they would wait for this process, and a flush they do not suffice for leaves them.
  const last =
    "select case when pg_catalog.has_sequence_privilege(s.r, 'SELECT,USAGE') then pg_catalog.pg_sequence_last_value(s.r) end as v offset 0"
  const first = 'select case when l.v is null then nextval(s.r) end as f offset 0'
  const lastDrawn = 'coalesce(l.v, f.f)'
  const left = `case when q.seqrelid is null or q.seqcycle then null when q.seqincrement > 0 then floor((q.seqmax::numeric - ${lastDrawn}) / q.seqincrement) else floor((${lastDrawn}::numeric - q.seqmin) / -q.seqincrement) end`
  const counted = `select ${left} as left_, s.n - (f.f is not null)::int as n, greatest(s.m - (f.f is not null)::int, 0) as m offset 0`
  const taken =
    'select case when k.left_ is null or k.left_ >= k.n then k.n when k.left_ >= k.m then k.m else 0 end as t offset 0'
  const drawn =
    "select case when f.f is null then '{}'::int8[] else array[f.f] end || array(select nextval(s.r) from generate_series(1, c.t)) as a"
  const consecutive =
    'coalesce(q.seqincrement = 1 and not q.seqcycle and d.a[cardinality(d.a)] - d.a[1] + 1 = cardinality(d.a), false)'
  const arrays = `${quoteTextArrayLiteral(sequences)}, '{${counts.join(',')}}'::int4[], '{${needed.join(',')}}'::int4[]`
  const unnested = owned
    ? `unnest(${arrays}, ${quoteTextArrayLiteral(owners.map((o) => o?.table ?? null))}, ${quoteTextArrayLiteral(owners.map((o) => o?.column ?? null))}) as u(seq, n, m, t, c)`
    : `unnest(${arrays}) as u(seq, n, m)`
  const source = `(select u.seq, ${resolved} as r, u.n, u.m from ${unnested}${usable} offset 0) as s`
  const joined = `${source} left join pg_catalog.pg_sequence as q on q.seqrelid = s.r cross join lateral (${last}) as l cross join lateral (${first}) as f cross join lateral (${counted}) as k cross join lateral (${taken}) as c cross join lateral (${drawn}) as d`
  return `select x.seq, x.rest, case when x.consecutive then x.a[1]::text end as first, case when x.consecutive then cardinality(x.a)::text end as count, case when x.consecutive then null else nullif(array_to_string(x.a, ','), '') end as ids from (select s.seq, (k.left_ - c.t)::text as rest, d.a, ${consecutive} as consecutive from ${joined}) as x`
}

/**
 * A row of a {@link fetchIdsSql} answer: a sequence's ids as the first and their count when they are
 * consecutive, else (`count` null or absent) the list joined by commas (null: none).
 */
interface FetchedIds {
  readonly seq: string
  /** How many values the sequence has left after this fetch (decimal text); null: no end (it cycles). */
  readonly rest?: string | null
  readonly first?: string | null
  readonly count?: number | string | null
  readonly ids: string | null
}

/** The ids of a {@link FetchedIds} row in the order drawn: a run of numbers when consecutive and safe. */
function idsOf(row: FetchedIds): IdRun {
  if (row.count === null || row.count === undefined || row.first === null || row.first === undefined)
    return { texts: row.ids === null ? [] : row.ids.split(',') }
  const count = Number(row.count)
  const first = Number(row.first)
  if (Number.isSafeInteger(first) && Number.isSafeInteger(first + count)) return { first, count }
  const big = BigInt(row.first)
  const texts: string[] = new Array(count)
  for (let i = 0; i < count; i++) texts[i] = String(big + BigInt(i))
  return { texts }
}

/** Runs one simple-protocol query and answers its rows (on the flush's connection). */
export type IdQuery = (text: string) => Promise<readonly Readonly<Record<string, unknown>>[]>

/** How many times the configured block size a busy sequence's block grows to. */
export const MAX_GROWTH = 16

/** Ids taken one at a time (see {@link IdAllocator.draw}). */
export interface IdDraw {
  /** The next id of `sequence` as a decimal text (`asText`) or a number; undefined past its need. */
  next(sequence: string, asText: boolean): string | number | undefined
  /** Takes what is left of the need. */
  finish(): void
}

/**
 * Pooled ids for sequence and identity primary keys, shared by every entity manager of a client. A
 * flush takes ids from the pool; when a sequence runs short, one query fetches a block for it and tops
 * up every other sequence of the pool for as long as that block lasts (see {@link missing}), so
 * steady-state flushes spend no round trip on ids and fetches come at the pace of the busiest
 * sequence, not once per sequence; a sequence that keeps running short gets bigger blocks (twice as
 * big each time, up to 16 times the block size). Ids come from `nextval`, so they are unique across
 * processes; a process that ends leaves unused ids as gaps (at most 16 blocks per sequence).
 */
export class IdAllocator {
  /** Per sequence: fetched ids, of which those from `head` on are still free (a queue without shifting). */
  readonly #pool = new Map<string, IdQueue>()
  readonly #blockSize: number
  readonly #lastNeed = new Map<string, number>()
  /** Per sequence: how many times a flush had to fetch for it (its block grows with each). */
  readonly #fills = new Map<string, number>()
  /**
   * The sequences the last {@link missing} topped up without being short: their fetch by the
   * {@link fill} that follows it does not grow their block.
   */
  #toppedUp: ReadonlySet<string> = new Set()
  /**
   * Per sequence: how many values it had left after its last fetch, when it has an end (it does not
   * cycle); absent when unknown or without end.
   */
  readonly #left = new Map<string, number>()
  /**
   * Per sequence: its fetches in flight, and whether the first of them grew its block. Flushes short
   * at once (a cold pool's first flushes, each on its connection) fetch each for itself; the block
   * grows once for all of them, not twice per fetch (ten concurrent first flushes drew 1,555 ids for
   * ten rows).
   */
  readonly #inFlight = new Map<string, { count: number; readonly grew: boolean }>()

  constructor(options: { blockSize?: number } = {}) {
    this.#blockSize = Math.max(1, options.blockSize ?? 50)
  }

  /** Ids available now for `sequence`. */
  available(sequence: string): number {
    return this.#pool.get(sequence)?.size ?? 0
  }

  /**
   * How many values `sequence` had left after its last fetch (beyond the ids of the pool), when that
   * fetch counted them: undefined when it did not, or when the sequence cycles.
   */
  leftIn(sequence: string): number | undefined {
    return this.#left.get(sequence)
  }

  /**
   * Whether the pool lacks ids for `need`: whether {@link missing} would ask for some. Asked on every
   * flush with new rows, where the pool almost always suffices: answered without building the map.
   */
  short(need: ReadonlyMap<string, number>): boolean {
    // Keys then values, not entries: an entry is an array per sequence, per call.
    for (const seq of need.keys()) if (need.get(seq)! > this.available(seq)) return true
    return false
  }

  /**
   * How many ids must be fetched per sequence to satisfy `need` (empty when the pool suffices): what
   * is short plus a block. When some must, every sequence this pool served, and every one of `need`,
   * is brought in the same fetch to what its demand takes for as many flushes as the longest-lasting
   * of those blocks (up to the largest block), and one that was not short to a block at least, so
   * that fetches stay rare however the flushes alternate between tables: sequences used at different
   * paces would otherwise run out one after the other, a fetch each. A top-up does not grow the
   * sequence's block (see {@link fill}); only running short does.
   */
  missing(need: ReadonlyMap<string, number>): Map<string, number> {
    const out = new Map<string, number>()
    // How many flushes like this one the short sequences will serve once fetched for.
    let horizon = 0
    for (const [seq, n] of need) {
      const short = n - this.available(seq)
      if (short <= 0) continue
      // What is short plus a block sized to recent demand, so the next flushes need no fetch.
      const fetched = short + this.#block(seq, n)
      out.set(seq, fetched)
      horizon = Math.max(horizon, Math.floor((this.available(seq) + fetched) / n))
    }
    const toppedUp = new Set<string>()
    this.#toppedUp = toppedUp
    if (out.size === 0) return out
    // Every sequence then holds what its demand (this flush's, else its last) takes over that horizon
    // (up to the largest block), so that none runs out much sooner than the others, each getting ids
    // in proportion to its use; one not short at least a block.
    const most = Math.min(this.#blockSize * MAX_GROWTH, 10_000)
    for (const seq of new Set([...out.keys(), ...this.#pool.keys()])) {
      const recent = need.get(seq) ?? this.#lastNeed.get(seq) ?? 1
      const lasting = Math.min(horizon * recent, most)
      const fetched = out.get(seq)
      if (fetched !== undefined) {
        out.set(seq, Math.max(fetched, lasting - this.available(seq)))
        continue
      }
      const lacking = Math.max(this.#block(seq, recent), lasting) - this.available(seq)
      if (lacking > 0) {
        out.set(seq, lacking)
        toppedUp.add(seq)
      }
    }
    return out
  }

  /**
   * Ids fetched beyond what is needed now: the block size, doubled by each fetch the sequence already
   * needed (up to {@link MAX_GROWTH} times), or twice the recent demand when that is more (up to 10,000).
   * A busy sequence thus fetches ever more rarely; a process that ends leaves at most that many ids unused.
   */
  #block(seq: string, n: number): number {
    const recent = Math.max(n, this.#lastNeed.get(seq) ?? 0)
    // A fetch in flight that grew the block grew it for the flushes short beside it too.
    const fills = (this.#fills.get(seq) ?? 0) - (this.#inFlight.get(seq)?.grew === true ? 1 : 0)
    const grown = this.#blockSize * Math.min(2 ** fills, MAX_GROWTH)
    return Math.max(grown, Math.min(recent * 2, 10_000))
  }

  /**
   * Fetches a block for each of `sequences` (those the session may use), so that the first flushes
   * need no fetch: one query. Made when `EntityManager.connect` reads the schema.
   */
  async prefetch(query: IdQuery, sequences: readonly string[]): Promise<void> {
    const wanted = sequences.filter((s) => this.available(s) === 0)
    if (wanted.length === 0) return
    await this.#add(
      query,
      // Nothing needed: a sequence with fewer values left than a block gives none (see `fetchIdsSql`).
      fetchIdsSql(
        wanted,
        wanted.map(() => this.#blockSize),
        { usableOnly: true },
      ),
    )
  }

  /**
   * Fetches `counts` ids per sequence in one query and adds them to the pool: one round
   * trip. The query goes as a simple-protocol query with literal values, so it costs one round trip
   * on a fresh connection too (a prepared statement would be described first: two). Each sequence
   * fetched grows its next block, but those the {@link missing} just before only topped up.
   * `needed`: per sequence, how many of `counts` the flush cannot do without. A sequence with fewer
   * values left than its count gives only those, or none when it has fewer left than those either
   * (see `fetchIdsSql`, and {@link leftIn}).
   */
  async fill(
    query: IdQuery,
    counts: ReadonlyMap<string, number>,
    needed: ReadonlyMap<string, number> = new Map(),
  ): Promise<number> {
    if (counts.size === 0) return 0
    const seqs = [...counts.keys()]
    for (const seq of seqs) {
      const flight = this.#inFlight.get(seq)
      // Short beside a fetch in flight for it: that fetch grew the block (or only topped it up).
      const grows = !this.#toppedUp.has(seq) && flight === undefined
      if (grows) this.#fills.set(seq, (this.#fills.get(seq) ?? 0) + 1)
      if (flight === undefined) this.#inFlight.set(seq, { count: 1, grew: grows })
      else flight.count++
    }
    this.#toppedUp = new Set()
    try {
      await this.#add(
        query,
        fetchIdsSql(
          seqs,
          seqs.map((s) => counts.get(s) ?? 0),
          { needed: seqs.map((s) => needed.get(s) ?? 0) },
        ),
      )
    } finally {
      for (const seq of seqs) {
        const flight = this.#inFlight.get(seq)
        if (flight !== undefined && --flight.count === 0) this.#inFlight.delete(seq)
      }
    }
    return 1
  }

  /** Runs `text` (a {@link fetchIdsSql} query) and adds the ids it answers to the pool. */
  async #add(query: IdQuery, text: string): Promise<void> {
    const rows = (await query(text)) as unknown as readonly FetchedIds[]
    for (const row of rows) {
      let q = this.#pool.get(row.seq)
      if (q === undefined) {
        q = new IdQueue()
        this.#pool.set(row.seq, q)
      }
      q.push(idsOf(row))
      const left = row.rest === null || row.rest === undefined ? undefined : Number(row.rest)
      if (left === undefined || !Number.isFinite(left)) this.#left.delete(row.seq)
      else this.#left.set(row.seq, left)
    }
  }

  /**
   * Takes `need` ids per sequence from the pool (call {@link missing}/{@link fill} first) one at a
   * time, as the rows take them: `next` gives a sequence's next id (undefined past its need), `finish`
   * takes the ids of `need` not given (a row given its id meanwhile), so that exactly `need` are
   * taken. No run or array per sequence: a flush of a few rows in a few tables takes its ids without
   * them.
   */
  draw(need: ReadonlyMap<string, number>): IdDraw {
    // All or nothing: a short sequence leaves every pool as it was. Keys then values, not entries:
    // an entry is an array per sequence.
    for (const seq of need.keys()) {
      const n = need.get(seq)!
      const free = this.available(seq)
      if (free < n) throw errors.idPoolShort(seq, free, n)
    }
    const pool = this.#pool
    // What is left of each sequence's need is kept by its queue (no map of it): a draw runs
    // synchronously, from here to `finish`, so no other draw meets it; one left unfinished (a row
    // that threw) leaves what it owed, set again by the next draw of the sequence and never read by
    // a draw that does not need it.
    for (const seq of need.keys()) {
      const n = need.get(seq)!
      this.#lastNeed.set(seq, n)
      const queue = pool.get(seq)
      if (queue !== undefined) queue.owed = n
    }
    return {
      next(seq, asText) {
        const queue = need.has(seq) ? pool.get(seq) : undefined
        if (queue === undefined || queue.owed === 0) return undefined
        queue.owed--
        return queue.takeOne(asText)
      },
      finish() {
        for (const seq of need.keys()) {
          const queue = pool.get(seq)
          if (queue === undefined) continue
          for (; queue.owed > 0; queue.owed--) queue.takeOne(false)
        }
      },
    }
  }

  /**
   * Takes `need` ids per sequence from the pool, as decimal texts: {@link draw} taking them all at
   * once.
   *
   * @example
   * ids.take(new Map([['public.author_id_seq', 2]])) // Map { 'public.author_id_seq' => ['101', '102'] }
   */
  take(need: ReadonlyMap<string, number>): Map<string, string[]> {
    const draw = this.draw(need)
    const out = new Map<string, string[]>()
    for (const [seq, n] of need) {
      const texts: string[] = []
      for (let i = 0; i < n; i++) texts.push(draw.next(seq, true) as string)
      out.set(seq, texts)
    }
    return out
  }
}
