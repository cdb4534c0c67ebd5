import postgres from 'postgres'

/** Connects once to `url` and returns `server_version` (e.g. `18.1`); throws with a short message on failure. */
export async function serverVersion(url: string, timeoutSeconds = 10): Promise<string> {
  const sql = postgres(url, { max: 1, connect_timeout: timeoutSeconds, onnotice: () => {} })
  try {
    const [row] = await sql<{ v: string }[]>`select current_setting('server_version') as v`
    return (row?.v ?? '').split(' ')[0] ?? ''
  } finally {
    await sql.end({ timeout: 1 })
  }
}
