import postgres from 'postgres'

/**
 * Creates database `name` on the server of `adminUrl` (dropping a leftover of the same name) and
 * returns its URL. Used to give each test file its own database.
 *
 * @example
 * const url = await createDatabase(pg.url, 'test_books')
 */
export async function createDatabase(adminUrl: string, name: string): Promise<string> {
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(name)) throw new Error(`invalid database name: ${name}`)
  const sql = postgres(adminUrl, { max: 1, onnotice: () => {} })
  try {
    await sql.unsafe(`drop database if exists "${name}" with (force)`)
    await sql.unsafe(`create database "${name}"`)
  } finally {
    await sql.end({ timeout: 1 })
  }
  const u = new URL(adminUrl)
  u.pathname = `/${name}`
  return u.toString()
}

/** Drops database `name` (disconnecting its sessions). */
export async function dropDatabase(adminUrl: string, name: string): Promise<void> {
  const sql = postgres(adminUrl, { max: 1, onnotice: () => {} })
  try {
    await sql.unsafe(`drop database if exists "${name}" with (force)`)
  } finally {
    await sql.end({ timeout: 1 })
  }
}
