import { EntityManager, isPipeflushError } from '@pipeflush/core'
import { TEST_DRIVERS, useTestDatabase } from '@pipeflush/testkit/vitest'
import { beforeAll, describe, expect, test } from 'vitest'

// A partitioned table whose partitions each declare a foreign key (as pagila's payment does): the
// flush orders by it as one key of the table, and a violation, which the server names by the
// partition's constraint, names its column whichever partition the row went to.
const db = useTestDatabase()

beforeAll(async () => {
  await db.sql.unsafe(`
    create table customer (id int primary key);
    create table payment (id int, customer_id int not null, month int not null, primary key (id, month))
      partition by range (month);
    create table payment_01 partition of payment for values from (1) to (2);
    create table payment_02 partition of payment for values from (2) to (3);
    create table payment_05 partition of payment for values from (5) to (6);
    alter table payment_01 add constraint payment_01_customer_fkey foreign key (customer_id) references customer;
    alter table payment_02 add constraint payment_02_customer_fkey foreign key (customer_id) references customer;
    alter table payment_05 add constraint payment_05_customer_fkey foreign key (customer_id) references customer;
    insert into customer values (1);
  `)
})

describe.each(TEST_DRIVERS)('%s', (driver) => {
  test.each([1, 2, 5])(
    "a payment of month %i for a customer there is not: CONSTRAINT_VIOLATION naming the column and the partition's constraint",
    async (month) => {
      const { client } = db.client(driver, { max: 1 })
      const em = (await EntityManager.connect(client)).fork()
      em.create('payment', { id: month * 100 + (driver === 'pg' ? 1 : 2), customer_id: 99, month })
      const e = await em.flush().catch((x: unknown) => x)
      expect(isPipeflushError(e, 'CONSTRAINT_VIOLATION'), String(e)).toBe(true)
      expect(e).toMatchObject({
        table: 'payment',
        column: 'customer_id',
        constraint: `payment_0${month}_customer_fkey`,
      })
    },
  )
})
