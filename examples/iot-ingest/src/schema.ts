import type postgres from 'postgres'

/**
 * The article's table of device readings: one row per device and instant, the measure overwritten
 * when the same reading comes again (`on conflict (device, recorded_at) do update`).
 */
export interface DB {
  reading: { device: number; recorded_at: Date; measure: number }
}

const DDL = `
  create table reading (
    device int not null,
    recorded_at timestamptz not null,
    measure float8 not null,
    primary key (device, recorded_at)
  );
`

/** Creates the table (in an empty database). */
export async function createSchema(sql: postgres.Sql): Promise<void> {
  await sql.unsafe(DDL)
}

/** Empties the table. */
export async function resetData(sql: postgres.Sql): Promise<void> {
  await sql.unsafe('truncate reading')
}
