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

/** Runs one SQL text (setup only): `query` of a pool from `startExampleDatabase`, or `sql.unsafe`. */
export type RunSql = (text: string) => Promise<unknown>

/**
 * Creates the table (in an empty database).
 *
 * @example
 * await createSchema(admin.query)
 */
export async function createSchema(run: RunSql): Promise<void> {
  await run(DDL)
}

/**
 * Empties the table.
 *
 * @example
 * await resetData(admin.query)
 */
export async function resetData(run: RunSql): Promise<void> {
  await run('truncate reading')
}
