import { randomUUID } from 'node:crypto'
import type { Entity, EntityManager } from '@pipeflush/core'
import type postgres from 'postgres'

export const FLUSH_LOG = 'pipeflush_flush_log'

export const NETWORK_DDL = `
create table ${FLUSH_LOG} (flush_id uuid primary key, committed boolean not null, at timestamptz not null default now());
create table counter (id int primary key, n int not null, version int not null default 1);
insert into counter values (1, 0, 1);
create table item (id bigserial primary key, batch text not null, n int not null);
create table note (id bigserial primary key, batch text not null, body text not null);
-- A row of "slow" sleeps in its insert; a row of "slow_commit" sleeps at COMMIT (deferred trigger):
-- the test adds its toxic while the server sleeps, so the fault hits a known point of the flush.
create table slow (id bigserial primary key, batch text not null, ms int not null);
create function slow_sleep() returns trigger language plpgsql as $$
  begin perform pg_sleep(new.ms / 1000.0); return new; end $$;
create trigger slow_sleep before insert on slow for each row execute function slow_sleep();
create table slow_commit (id bigserial primary key, batch text not null, ms int not null);
create function commit_sleep() returns trigger language plpgsql as $$
  begin perform pg_sleep(new.ms / 1000.0); return null; end $$;
create constraint trigger commit_sleep after insert on slow_commit deferrable initially deferred
  for each row execute function commit_sleep();
`

export interface UnitOptions {
  /** A row whose insert sleeps this long on the server. */
  readonly slowMs?: number
  /** A row whose COMMIT sleeps this long on the server. */
  readonly slowCommitMs?: number
  /** Notes to add, and their size. */
  readonly notes?: number
  readonly noteBytes?: number
  /** New items take their ids from the sequence (an id fetch) instead of explicit ids. */
  readonly sequenceIds?: boolean
}

/** One flush's worth of changes, tagged so that the test can count what reached the database. */
export interface Unit {
  readonly em: EntityManager
  readonly tag: string
  readonly rows: number
  readonly counterBefore: number
  readonly firstItem: Entity
}

let nextId = 1_000_000 + Math.floor(Math.random() * 1000) * 100_000

/**
 * Adds to `em` an increment of the versioned counter (read through `direct`, so that the flush's pool
 * is not used before the flush), three items, notes and the slow rows asked for.
 */
export async function makeUnit(em: EntityManager, direct: postgres.Sql, o: UnitOptions): Promise<Unit> {
  const tag = randomUUID().slice(0, 8)
  const [row] = await direct<{ n: number; version: number }[]>`select n, version from counter where id = 1`
  const counterBefore = row!.n
  const counter = em.merge('counter', { id: 1, n: counterBefore, version: row!.version })
  counter['n'] = counterBefore + 1
  const id = () => (o.sequenceIds ? {} : { id: nextId++ })
  let rows = 0
  let firstItem: Entity | undefined
  // With sequence ids, more items than the id pool holds after connecting: the flush fetches ids.
  const items = o.sequenceIds ? 300 : 3
  for (let n = 0; n < items; n++, rows++) {
    const item = em.create('item', { ...id(), batch: tag, n })
    firstItem ??= item
  }
  for (let n = 0; n < (o.notes ?? 2); n++, rows++) {
    em.create('note', { id: nextId++, batch: tag, body: `${n}:`.padEnd(o.noteBytes ?? 50, 'x') })
  }
  if (o.slowMs !== undefined) {
    em.create('slow', { id: nextId++, batch: tag, ms: o.slowMs })
    rows++
  }
  if (o.slowCommitMs !== undefined) {
    em.create('slow_commit', { id: nextId++, batch: tag, ms: o.slowCommitMs })
    rows++
  }
  return { em, tag, rows, counterBefore, firstItem: firstItem! }
}

/** 'all' when every row of the unit and its counter increment are in the database, 'none' when none is. */
export async function stateOf(direct: postgres.Sql, unit: Unit): Promise<'all' | 'none' | string> {
  const [row] = await direct<{ rows: number; n: number }[]>`
    select (select count(*) from item where batch = ${unit.tag})
      + (select count(*) from note where batch = ${unit.tag})
      + (select count(*) from slow where batch = ${unit.tag})
      + (select count(*) from slow_commit where batch = ${unit.tag}) as rows,
      (select n from counter where id = 1) as n`
  const rows = Number(row!.rows)
  const n = Number(row!.n)
  if (rows === unit.rows && n === unit.counterBefore + 1) return 'all'
  if (rows === 0 && n === unit.counterBefore) return 'none'
  return `partial: ${rows} of ${unit.rows} rows, counter ${n} (was ${unit.counterBefore})`
}
