import { describe, expect, it } from 'vitest'
import type { CatalogForeignKey } from '../../../src/schema/catalog-rows.ts'
import { partitionForeignKeys } from '../../../src/schema/partition-keys.ts'

function fk(name: string, overrides: Partial<CatalogForeignKey> = {}): CatalogForeignKey {
  return {
    name,
    columns: ['customer_id'],
    targetSchema: 'public',
    targetName: 'customer',
    targetColumns: ['customer_id'],
    deferrable: false,
    initiallyDeferred: false,
    onDelete: 'a',
    ...overrides,
  }
}

describe('partitionForeignKeys', () => {
  it('makes a key every partition declares the table’s, named after the first partition’s', () => {
    const keys = partitionForeignKeys(
      [],
      [
        { name: 'p1', schema: 'public', foreignKeys: [fk('p1_customer_fkey')] },
        { name: 'p2', schema: 'public', foreignKeys: [fk('p2_customer_fkey')] },
      ],
    )
    expect(keys).toEqual([{ ...fk('p1_customer_fkey'), aliases: ['p1_customer_fkey', 'p2_customer_fkey'] }])
  })

  it('makes a key some partitions lack the table’s too (a row may land in any leaf), named after the first declaring partition’s', () => {
    const staff = fk('p1_staff_fkey', {
      columns: ['staff_id'],
      targetName: 'staff',
      targetColumns: ['staff_id'],
    })
    // Pagila: the first partitions declare the keys, the later ones none.
    expect(
      partitionForeignKeys(
        [],
        [
          { name: 'p1', schema: 'public', foreignKeys: [fk('p1_customer_fkey'), staff] },
          { name: 'p2', schema: 'public', foreignKeys: [fk('p2_customer_fkey')] },
          { name: 'p3', schema: 'public', foreignKeys: [{ ...staff, name: 'p3_staff_fkey' }] },
          { name: 'p4', schema: 'public', foreignKeys: [] },
        ],
      ).map((k) => k.name),
    ).toEqual(['p1_customer_fkey', 'p1_staff_fkey'])
    expect(
      partitionForeignKeys(
        [],
        [
          { name: 'p1', schema: 'public', foreignKeys: [] },
          { name: 'p2', schema: 'public', foreignKeys: [fk('p2_customer_fkey')] },
        ],
      ).map((k) => k.name),
    ).toEqual(['p2_customer_fkey'])
  })

  it('leaves out a key the table declares itself, and everything without partitions', () => {
    expect(
      partitionForeignKeys(
        [fk('payment_customer_fkey')],
        [
          { name: 'p1', schema: 'public', foreignKeys: [fk('p1_customer_fkey')] },
          { name: 'p2', schema: 'public', foreignKeys: [fk('p2_customer_fkey')] },
        ],
      ),
    ).toEqual([])
    expect(partitionForeignKeys([], [])).toEqual([])
  })

  it('tells keys apart by columns, target and target columns, and counts a key listed twice on one partition once', () => {
    const byEmail = fk('p1_email_fkey', { targetColumns: ['email'] })
    const keys = partitionForeignKeys(
      [],
      [
        {
          name: 'p1',
          schema: 'public',
          foreignKeys: [fk('p1_customer_fkey'), fk('p1_customer_fkey_1'), byEmail],
        },
        {
          name: 'p2',
          schema: 'public',
          foreignKeys: [fk('p2_customer_fkey'), { ...byEmail, targetSchema: 'other' }],
        },
      ],
    )
    expect(keys.map((k) => `${k.name} -> ${k.targetSchema}.${k.targetName}(${k.targetColumns})`)).toEqual([
      'p1_customer_fkey -> public.customer(customer_id)',
      'p1_email_fkey -> public.customer(email)',
      'p1_email_fkey -> other.customer(email)',
    ])
  })

  it('orders by the strictest declaration: deferred only where every partition defers, the ON DELETE that orders deletes most', () => {
    const [mixed] = partitionForeignKeys(
      [],
      [
        {
          name: 'p1',
          schema: 'public',
          foreignKeys: [fk('a', { deferrable: true, initiallyDeferred: true, onDelete: 'n' })],
        },
        {
          name: 'p2',
          schema: 'public',
          foreignKeys: [fk('b', { deferrable: true, initiallyDeferred: false, onDelete: 'c' })],
        },
        {
          name: 'p3',
          schema: 'public',
          foreignKeys: [fk('c', { deferrable: true, initiallyDeferred: true, onDelete: 'r' })],
        },
      ],
    )
    expect(mixed).toMatchObject({ name: 'a', deferrable: true, initiallyDeferred: false, onDelete: 'c' })
    const [restrict] = partitionForeignKeys(
      [],
      [
        { name: 'p1', schema: 'public', foreignKeys: [fk('a', { onDelete: 'n' })] },
        { name: 'p2', schema: 'public', foreignKeys: [fk('b', { onDelete: 'r' })] },
        { name: 'p3', schema: 'public', foreignKeys: [fk('c', { onDelete: 'a' })] },
      ],
    )
    expect(restrict?.onDelete).toBe('r')
    const [same] = partitionForeignKeys(
      [],
      [
        { name: 'p1', schema: 'public', foreignKeys: [fk('a', { onDelete: 'n', deferrable: true })] },
        { name: 'p2', schema: 'public', foreignKeys: [fk('b', { onDelete: 'n' })] },
      ],
    )
    expect(same).toMatchObject({ onDelete: 'n', deferrable: false })
  })

  it('defers a key declared on some partitions when every partition that declares it defers it', () => {
    const [deferred] = partitionForeignKeys(
      [],
      [
        {
          name: 'p1',
          schema: 'public',
          foreignKeys: [fk('a', { deferrable: true, initiallyDeferred: true })],
        },
        { name: 'p2', schema: 'public', foreignKeys: [] },
        {
          name: 'p3',
          schema: 'public',
          foreignKeys: [fk('c', { deferrable: true, initiallyDeferred: true })],
        },
      ],
    )
    expect(deferred).toMatchObject({ name: 'a', deferrable: true, initiallyDeferred: true })
  })
})
