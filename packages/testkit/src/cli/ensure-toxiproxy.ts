// Finds or builds the toxiproxy-server binary ahead of the tests (used by .ci/run), printing where it is.
import { findOrBuildToxiproxyServer } from '../toxiproxy/binary.ts'

if (process.env['TOXIPROXY_URL']) {
  console.log(`toxiproxy: TOXIPROXY_URL=${process.env['TOXIPROXY_URL']} is set; nothing to build`)
} else {
  const tried: string[] = []
  try {
    const found = await findOrBuildToxiproxyServer(tried)
    console.log(`toxiproxy: ${found.how}`)
  } catch {
    console.error(`toxiproxy: no binary could be had:\n  ${tried.join('\n  ')}`)
    process.exit(1)
  }
}
