import type { ColumnModel, ScalarType } from '../../../src/model/model.ts'

/** A column model for tests: `column('int8')`, `column('text', { isArray: true })`. */
export function column(type: ScalarType, extra: Partial<ColumnModel> = {}): ColumnModel {
  const isArray = extra.isArray ?? false
  const base = type === 'enum' ? '"public"."mood"' : type
  return {
    name: extra.name ?? 'c',
    type,
    sqlType: isArray ? `${base}[]` : base,
    isArray,
    nullable: true,
    hasDefault: false,
    identity: null,
    sequence: null,
    generated: false,
    ...(type === 'enum' ? { enumLabels: ['sad', 'ok', 'happy'] } : {}),
    ...extra,
  }
}

export const at = { table: 'book', key: { id: 7 } }
