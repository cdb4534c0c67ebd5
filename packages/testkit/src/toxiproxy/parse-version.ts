import { TOXIPROXY_VERSION } from './binary.ts'

/**
 * toxiproxy's `/version` answers `{"version": "2.12.0"}` (or plain text in old servers); a server
 * built with `go install` has no version stamped and answers `git`, which we report as the version
 * we built.
 */
export function parseToxiproxyVersion(raw: string): string {
  let v = raw.trim()
  try {
    const json = JSON.parse(v) as { version?: unknown }
    if (typeof json.version === 'string') v = json.version
  } catch {
    // plain text
  }
  return v === 'git' ? `${TOXIPROXY_VERSION.slice(1)} (built from source)` : v.replace(/^v/, '')
}
