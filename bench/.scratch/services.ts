import { startPostgres, startToxiproxy } from '@pipeflush/testkit'

const pg = await startPostgres()
const tp = await startToxiproxy()
console.log(`export DATABASE_URL='${pg.url}' TOXIPROXY_URL='${tp.apiUrl}'`)
setInterval(() => {}, 1 << 30)
