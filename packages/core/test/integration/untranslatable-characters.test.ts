import { EntityManager, isPipeflushError } from '@pipeflush/core'
import { createRoundTripCounter, dropDatabase, openClient } from '@pipeflush/testkit'
import { TEST_DRIVERS, useTestDatabase } from '@pipeflush/testkit/vitest'
import postgres from 'postgres'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'

// A database in LATIN1 and a value with a character LATIN1 lacks (`€`): the server converts a
// simple-protocol message whole before running any of it, and the flush's error named the first
// statement's table (author, where the value was the book's), its message cut at the encoding's name
// (found by an outside probe). It names the statement holding the character now, and keeps the
// server's sentence, which quotes encodings, not values.
const db = useTestDatabase()
const name = 'pf_latin1'
let url: string

beforeAll(async () => {
  const admin = postgres(db.services.adminUrl, { max: 1, onnotice: () => {} })
  try {
    await admin.unsafe(`drop database if exists ${name} with (force)`)
    await admin.unsafe(
      `create database ${name} encoding 'LATIN1' lc_collate 'C' lc_ctype 'C' template template0`,
    )
  } finally {
    await admin.end({ timeout: 1 })
  }
  const u = new URL(db.services.adminUrl)
  u.pathname = `/${name}`
  url = u.toString()
  const setup = postgres(url, { max: 1, onnotice: () => {} })
  await setup.unsafe(
    'create table l1_author (id serial primary key, name text not null); create table l1_book (id serial primary key, author_id int not null references l1_author, title text not null)',
  )
  await setup.end({ timeout: 1 })
})

afterAll(async () => {
  await dropDatabase(db.services.adminUrl, name).catch(() => {})
})

describe.each(TEST_DRIVERS)('%s', (driver) => {
  test.each(['burst', 'waves', 'off'] as const)(
    '%s: the book holding € fails the flush, named; nothing committed; without it, the retry commits',
    async (pipeline) => {
      const tc = openClient(driver, url, createRoundTripCounter())
      try {
        const em = (await EntityManager.connect(tc.client, { pipeline })).fork()
        const author = em.create('l1_author', { name: 'Ada' })
        const book = em.create('l1_book', { author_id: author, title: 'Price: 5 €' })
        const failed = await em.flush().catch((e: unknown) => e)
        expect(isPipeflushError(failed, 'STATEMENT_FAILED'), String(failed)).toBe(true)
        expect(failed).toMatchObject({ sqlState: '22P05', table: 'l1_book' })
        expect((failed as Error).message).toContain('has no equivalent in encoding "LATIN1"')
        expect(await tc.query('select count(*)::int as n from l1_author')).toEqual([{ n: 0 }])
        book['title'] = 'Price: 5 EUR'
        await em.flush()
        expect(await tc.query('select title from l1_book')).toEqual([{ title: 'Price: 5 EUR' }])
        await tc.query('truncate l1_author, l1_book')
      } finally {
        await tc.end()
      }
    },
  )
})
