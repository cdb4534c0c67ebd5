import { describe, expect, it } from 'vitest'
import { buildTableModel } from '../../../src/schema/build-table.ts'
import { defineSchema } from '../../../src/schema/define-schema.ts'
import { keyFillOf, keyFills } from '../../../src/schema/key-fill.ts'

const schema = defineSchema({
  serial_key: { columns: { id: { type: 'int4', sequence: 'customer_customer_id_seq' } }, primaryKey: ['id'] },
  identity_key: { columns: { id: { type: 'int8', identity: 'always' } }, primaryKey: ['id'] },
  payment: {
    columns: {
      payment_date: 'timestamptz',
      payment_id: { type: 'int4', sequence: 'payment_payment_id_seq' },
    },
    primaryKey: ['payment_date', 'payment_id'],
  },
  uuid_key: { columns: { id: 'uuid' }, primaryKey: ['id'] },
  uuid_part: {
    columns: { tenant: 'int4', id: { type: 'uuid', default: true }, other: 'uuid' },
    primaryKey: ['tenant', 'id', 'other'],
  },
  function_key: { columns: { code: { type: 'text', default: true } }, primaryKey: ['code'] },
  generated_key: { columns: { a: 'int4', b: { type: 'int4', generated: true } }, primaryKey: ['a', 'b'] },
  given_key: { columns: { code: 'text' }, primaryKey: ['code'] },
})

function fill(table: string, column: string) {
  const t = schema.tables.get(table)!
  return keyFillOf(t, t.columnsByName.get(column)!)
}

/** A table whose key sequence the role may not use (as readSchema reads it). */
function denied(identity: 'always' | null) {
  return buildTableModel({
    schema: 'public',
    name: identity ? 'locked_identity' : 'locked_serial',
    columns: [
      {
        name: 'id',
        type: 'int4',
        sequence: 'public.locked_id_seq',
        sequenceDenied: true,
        identity,
        hasDefault: true,
      },
    ],
    primaryKey: ['id'],
  })
}

describe('keyFillOf', () => {
  it('draws from a usable sequence: serial, DEFAULT nextval, identity, a part of a composite key', () => {
    expect(fill('serial_key', 'id')).toBe('sequence')
    expect(fill('identity_key', 'id')).toBe('sequence')
    expect(fill('payment', 'payment_id')).toBe('sequence')
    expect(fill('payment', 'payment_date')).toBe('given')
  })

  it('makes uuids for a single uuid key, and for a uuid key part with a default', () => {
    expect(fill('uuid_key', 'id')).toBe('uuid')
    expect(fill('uuid_part', 'id')).toBe('uuid')
    expect(fill('uuid_part', 'other')).toBe('given')
  })

  it('leaves to the server a key with another default, a generated key part, an identity whose sequence is denied', () => {
    expect(fill('function_key', 'code')).toBe('server')
    expect(fill('generated_key', 'b')).toBe('server')
    const identity = denied('always')
    expect(keyFillOf(identity, identity.columnsByName.get('id')!)).toBe('server')
  })

  it('refuses a serial key whose sequence is denied, and wants a key without default given', () => {
    const serial = denied(null)
    expect(keyFillOf(serial, serial.columnsByName.get('id')!)).toBe('denied')
    expect(fill('given_key', 'code')).toBe('given')
  })
})

describe('keyFills', () => {
  it('groups the key columns by how they are filled', () => {
    const payment = keyFills(schema.tables.get('payment')!)
    expect(payment.sequence.map((c) => c.name)).toEqual(['payment_id'])
    expect([payment.uuid, payment.server, payment.denied]).toEqual([[], [], []])
    expect(keyFills(schema.tables.get('generated_key')!).server.map((c) => c.name)).toEqual(['b'])
  })
})
