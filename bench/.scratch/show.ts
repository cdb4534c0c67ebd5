import postgres from 'postgres'
const sql = postgres(process.env.DATABASE_URL!, { max: 1 })
console.log(await sql`select name, setting from pg_settings where name in ('fsync','synchronous_commit','wal_sync_method','shared_buffers','full_page_writes')`)
await sql.end()
