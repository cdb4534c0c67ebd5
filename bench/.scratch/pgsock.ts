import { Socket } from 'node:net'
import pg from 'pg'

const url = process.env.DATABASE_URL!
let rt = 0,
  calls = 0
let received = true
const stream = () => {
  calls++
  const s = new Socket()
  s.once('connect', () => {
    const write = s.write.bind(s) as (...a: unknown[]) => boolean
    s.write = ((chunk: unknown, ...rest: unknown[]) => {
      if (received) {
        rt++
        received = false
      }
      return write(chunk, ...rest)
    }) as Socket['write']
  })
  s.on('data', () => {
    received = true
  })
  return s
}
const c = new pg.Client({ connectionString: url, stream } as never)
await c.connect()
console.log('calls', calls, 'rt after connect', rt)
rt = 0
await c.query('select 1')
console.log('rt select', rt)
await c.end()
