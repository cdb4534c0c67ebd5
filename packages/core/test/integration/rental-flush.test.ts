import { EntityManager, type FlushPlan, type FlushReport, type PipelineMode } from '@pipeflush/core'
import { type DriverName, TEST_DRIVERS, useTestDatabase } from '@pipeflush/testkit/vitest'
import { beforeAll, describe, expect, test } from 'vitest'
import { counted } from './fixtures/counted.ts'
import { rentalDdl } from './fixtures/rental-schema.ts'

// The first requests of a DVD-rental application, on a schema whose keys are filled by DEFAULT
// nextval of sequences owned by nothing, whose payment table is partitioned by month with its foreign
// keys on the partitions only and keyed (payment_date, payment_id): every driver, every mode.
const db = useTestDatabase()
const modes: PipelineMode[] = ['off', 'waves', 'burst']
const drivers: readonly DriverName[] = TEST_DRIVERS

function schemaOf(driver: DriverName, mode: PipelineMode): string {
  return `r_${driver.replace(/[^a-z]/g, '')}_${mode}`
}

beforeAll(async () => {
  for (const driver of drivers)
    for (const mode of modes) await db.sql.unsafe(rentalDdl(schemaOf(driver, mode)))
})

/** A root entity manager on one connection whose search path is (driver, mode)'s schema. */
async function setup(driver: DriverName, mode: PipelineMode) {
  const schema = schemaOf(driver, mode)
  const c = db.client(driver, {
    max: 1,
    postgresJs: { connection: { search_path: schema } },
    pg: { options: `-c search_path=${schema}` },
  })
  const root = await EntityManager.connect(c.client, { pipeline: mode, idBlockSize: 100 })
  return { ...c, root, schema }
}

/** The round trips of a flush in `mode` that fetches no ids on a warm connection. */
function expectedTrips(mode: PipelineMode, report: FlushReport): number {
  return mode === 'burst' ? 1 : mode === 'waves' ? 2 + report.waves : 2 + report.statements
}

function kinds(plan: FlushPlan): string[][] {
  return plan.waves.map((wave) => wave.map((s) => `${s.kind} ${s.table}`))
}

const FEB = new Date('2022-02-14T10:00:00.000Z')
const MAR = new Date('2022-03-01T09:30:00.000Z')
const MAY = new Date('2022-05-24T22:53:30.000Z')
const JUL = new Date('2022-07-08T12:00:00.000Z')

describe.each(drivers)('%s', (driver) => {
  test.each(modes)(
    "%s: a new customer, their rental and its payment in one flush: keys drawn from the sequences the defaults name, ordered by the partitions' foreign keys, one round trip in burst",
    async (mode) => {
      const { root, counter, query, schema } = await setup(driver, mode)
      const em = root.fork()
      const customer = em.create('customer', {
        store_id: 1,
        first_name: 'Mary',
        last_name: 'Smith',
        email: 'mary.smith@example.com',
        address_id: 1,
      })
      const rental = em.create('rental', {
        rental_date: FEB,
        inventory_id: 1,
        customer_id: customer,
        staff_id: 1,
      })
      const payment = em.create('payment', {
        customer_id: customer,
        staff_id: 1,
        rental_id: rental,
        amount: '2.99',
        payment_date: FEB,
      })
      const plan = em.plan()
      expect(kinds(plan)).toEqual([['insert customer'], ['insert rental'], ['insert payment']])
      // pipeflush sends the keys: drawn from the pool, not left to the DEFAULT.
      expect(
        plan.waves.flat().map((s) => s.columns.filter((c) => c.endsWith('_id') && c.startsWith(s.table))),
      ).toEqual([['customer_id'], ['rental_id'], ['payment_id']])
      const report = await counted(counter, () => em.flush())
      expect(report).toMatchObject({ inserted: 3, idFetch: false, statements: 3, waves: 3 })
      expect(report.roundTrips).toBe(expectedTrips(mode, report))
      if (mode === 'burst') expect(report.roundTrips).toBe(1)
      const [stored] = await query(
        `select p.tableoid::regclass::text as part, p.payment_id, p.customer_id, p.rental_id, r.customer_id as renter,
           c.create_date::text as created, (select last_value from "${schema}".customer_customer_id_seq) as customer_seq,
           (select last_value from "${schema}".payment_payment_id_seq) as payment_seq
         from "${schema}".payment p join "${schema}".rental r using (rental_id) join "${schema}".customer c on c.customer_id = p.customer_id
         where p.payment_id = ${Number(payment['payment_id'])}`,
      )
      expect(stored).toMatchObject({
        part: 'payment_p2022_02',
        payment_id: payment['payment_id'],
        customer_id: customer['customer_id'],
        rental_id: rental['rental_id'],
        renter: customer['customer_id'],
      })
      // Each id came from its table's sequence (drawn in a block when connecting).
      expect(Number(stored!['customer_seq'])).toBeGreaterThanOrEqual(Number(customer['customer_id']))
      expect(Number(stored!['payment_seq'])).toBeGreaterThanOrEqual(Number(payment['payment_id']))
      // The values the server filled came back: the customer's create_date, the rental's last_update.
      expect(customer['create_date']).toBe(stored!['created'])
      expect(rental['last_update']).toBeInstanceOf(Date)
      expect(em.stateOf(payment)).toBe('managed')
      expect(await em.load('payment', { payment_date: FEB, payment_id: payment['payment_id'] })).toBe(payment)
    },
  )

  test.each(modes)(
    "%s: Pagila's layout, foreign keys on six of twelve partitions: a payment in May (a leaf that enforces them) and one in July (a leaf that does not) after their new customer and rental, one round trip in burst",
    async (mode) => {
      const { root, counter, query, schema } = await setup(driver, mode)
      const em = root.fork()
      const customer = em.create('customer', {
        store_id: 1,
        first_name: 'Jared',
        last_name: 'Ely',
        address_id: 1,
      })
      const rental = em.create('rental', {
        rental_date: MAY,
        inventory_id: 1,
        customer_id: customer,
        staff_id: 1,
      })
      const may = em.create('payment', {
        customer_id: customer,
        staff_id: 1,
        rental_id: rental,
        amount: '2.99',
        payment_date: MAY,
      })
      const july = em.create('payment', {
        customer_id: customer,
        staff_id: 1,
        rental_id: rental,
        amount: '0.99',
        payment_date: JUL,
      })
      expect(kinds(em.plan())).toEqual([['insert customer'], ['insert rental'], ['insert payment']])
      const report = await counted(counter, () => em.flush())
      expect(report).toMatchObject({ inserted: 4, statements: 3, waves: 3 })
      expect(report.roundTrips).toBe(expectedTrips(mode, report))
      if (mode === 'burst') expect(report.roundTrips).toBe(1)
      const stored = await query(
        `select tableoid::regclass::text as part, rental_id from "${schema}".payment
         where payment_id in (${Number(may['payment_id'])}, ${Number(july['payment_id'])}) order by payment_date`,
      )
      expect(stored).toEqual([
        { part: 'payment_p2022_05', rental_id: rental['rental_id'] },
        { part: 'payment_p2022_07', rental_id: rental['rental_id'] },
      ])
    },
  )

  test.each(modes)(
    '%s: a shared sequence, a sequence in another schema, nextval(text), a cast default: ids drawn from each; a warm burst of ten tables is one round trip',
    async (mode) => {
      const { root, counter, query, schema } = await setup(driver, mode)
      const warm = root.fork()
      warm.create('actor', { first_name: 'Penelope', last_name: 'Guiness' })
      await warm.flush()
      const em = root.fork()
      const language = em.create('language', { name: 'Italian' })
      const category = em.create('category', { name: 'Documentary' })
      const film = em.create('film', {
        title: 'Ace Goldfinger',
        release_year: 2006,
        language_id: language,
        rating: 'PG-13',
        special_features: ['Trailers', 'Deleted Scenes'],
      })
      em.create('film_category', { film_id: film, category_id: category })
      const actor = em.create('actor', { first_name: 'Nick', last_name: 'Wahlberg' })
      em.create('film_actor', { actor_id: actor, film_id: film })
      const inventory = em.create('inventory', { film_id: film, store_id: 1 })
      const customer = em.create('customer', {
        store_id: 1,
        first_name: 'Patricia',
        last_name: 'Johnson',
        address_id: 1,
      })
      const rental = em.create('rental', {
        rental_date: MAR,
        inventory_id: inventory,
        customer_id: customer,
        staff_id: 1,
      })
      em.create('payment', {
        customer_id: customer,
        staff_id: 1,
        rental_id: rental,
        amount: '0.99',
        payment_date: MAR,
      })
      const report = await counted(counter, () => em.flush())
      expect(report).toMatchObject({ inserted: 10, statements: 10, idFetch: false })
      expect(report.roundTrips).toBe(expectedTrips(mode, report))
      if (mode === 'burst') expect(report.roundTrips).toBe(1)
      // Language and category draw from one sequence: distinct ids, both from it.
      const [seqs] = await query(
        `select (select last_value from "${schema}".lookup_id_seq) as lookup,
           (select last_value from "${schema}_ids".film_film_id_seq) as film,
           (select last_value from "${schema}".actor_actor_id_seq) as actor`,
      )
      expect(language['language_id']).not.toBe(category['category_id'])
      expect(Number(seqs!['lookup'])).toBeGreaterThanOrEqual(
        Math.max(Number(language['language_id']), Number(category['category_id'])),
      )
      expect(Number(seqs!['film'])).toBeGreaterThanOrEqual(Number(film['film_id']))
      expect(Number(seqs!['actor'])).toBeGreaterThanOrEqual(Number(actor['actor_id']))
      const [row] = await query(
        `select f.title, f.rating::text, f.special_features::text as features, fc.category_id
         from "${schema}".film f join "${schema}".film_category fc using (film_id) where f.film_id = ${Number(film['film_id'])}`,
      )
      expect(row).toEqual({
        title: 'Ace Goldfinger',
        rating: 'PG-13',
        features: '{Trailers,"Deleted Scenes"}',
        category_id: category['category_id'],
      })
    },
  )

  test.each(modes)(
    "%s: deletes and updates ordered by the partitions' foreign keys (a payment before its customer, ON DELETE RESTRICT); a refund by a payment's composite key",
    async (mode) => {
      const { root, counter, query, schema } = await setup(driver, mode)
      const em = root.fork()
      const stay = em.create('customer', {
        store_id: 1,
        first_name: 'Linda',
        last_name: 'Williams',
        address_id: 1,
      })
      const leave = em.create('customer', {
        store_id: 1,
        first_name: 'Barbara',
        last_name: 'Jones',
        address_id: 1,
      })
      const rental = em.create('rental', {
        rental_date: MAR,
        inventory_id: 1,
        customer_id: leave,
        staff_id: 1,
      })
      const payment = em.create('payment', {
        customer_id: leave,
        staff_id: 1,
        rental_id: rental,
        amount: '5.99',
        payment_date: MAR,
      })
      const moved = em.create('payment', {
        customer_id: leave,
        staff_id: 1,
        amount: '1.99',
        payment_date: FEB,
      })
      await em.flush()
      const refunds = root.fork()
      refunds.create('refund', {
        payment_date: payment['payment_date'],
        payment_id: payment['payment_id'],
        amount: '1.00',
      })
      refunds.create('january_audit', {
        payment_date: FEB,
        payment_id: moved['payment_id'],
        note: 'not January',
      })
      await expect(refunds.flush()).rejects.toMatchObject({ code: 'CONSTRAINT_VIOLATION' })
      refunds.clear()
      refunds.create('refund', {
        payment_date: payment['payment_date'],
        payment_id: payment['payment_id'],
        amount: '1.00',
      })
      await refunds.flush()

      // The customer leaves: one payment moves to another customer, the rest goes (the refund cascades).
      em.remove(payment)
      em.remove(rental)
      moved['customer_id'] = stay
      em.remove(leave)
      expect(kinds(em.plan())).toEqual([
        ['update payment', 'delete payment'],
        ['delete rental'],
        ['delete customer'],
      ])
      const report = await counted(counter, () => em.flush())
      expect(report).toMatchObject({ updated: 1, deleted: 3 })
      expect(report.roundTrips).toBe(expectedTrips(mode, report))
      const [left] = await query(
        `select (select count(*)::int from "${schema}".customer where customer_id = ${Number(leave['customer_id'])}) as customers,
           (select count(*)::int from "${schema}".refund) as refunds,
           (select customer_id from "${schema}".payment where payment_id = ${Number(moved['payment_id'])}) as mover`,
      )
      expect(left).toEqual({ customers: 0, refunds: 0, mover: stay['customer_id'] })
    },
  )
})
