import { Agent, request } from 'node:http'
import type { FlushReport } from '@pipeflush/core'
import type { RoundTripCounter } from '@pipeflush/testkit'
import type { CreateAuthorInput, ReviseAuthorInput } from './api/inputs.ts'

/** One scripted request and what came back. */
export interface StepResult {
  readonly method: string
  readonly path: string
  readonly status: number
  /** What the request did, as the API told. */
  readonly did: readonly string[]
  readonly flush: FlushReport | undefined
  readonly error: string | undefined
  /** Wall time of the request as the client saw it. */
  readonly ms: number
  /** Round trips of the whole request (reads and flush) at the pool's sockets, when counted. */
  readonly roundTrips: number | undefined
  readonly result: unknown
}

const LE_GUIN: CreateAuthorInput = {
  name: 'Ursula K. Le Guin',
  bio: 'Earthsea and the Hainish Cycle.',
  books: [
    {
      title: 'A Wizard of Earthsea',
      isbn: 'LG-1968-EARTHSEA',
      price: '9.99',
      publishedOn: '1968-11-01',
      publisher: 'Parnassus',
      tags: ['fantasy', 'classic', 'coming-of-age'],
      reviews: [
        { reviewer: 'ged', stars: 5, body: 'A true name.' },
        { reviewer: 'vetch', stars: 4 },
        { reviewer: 'jasper', stars: 2, body: 'Too many shadows.' },
      ],
    },
    {
      title: 'The Left Hand of Darkness',
      isbn: 'LG-1969-LEFTHAND',
      price: '14.50',
      publishedOn: '1969-03-01',
      publisher: 'Ace',
      tags: ['science-fiction', 'classic'],
      reviews: [
        { reviewer: 'estraven', stars: 5 },
        { reviewer: 'tibe', stars: 1, body: 'Cold.' },
      ],
    },
    {
      title: 'The Dispossessed',
      isbn: 'LG-1974-DISPOSSESSED',
      price: '12.00',
      publisher: 'Harper & Row',
      tags: ['science-fiction', 'utopia'],
      reviews: [{ reviewer: 'shevek', stars: 5, body: 'An ambiguous utopia.' }],
    },
  ],
}

const BUTLER: CreateAuthorInput = {
  name: 'Octavia E. Butler',
  books: [
    {
      title: 'Kindred',
      isbn: 'OB-1979-KINDRED',
      price: '11.25',
      publisher: 'Doubleday',
      tags: ['science-fiction', 'classic', 'time-travel'],
      reviews: [
        { reviewer: 'dana', stars: 5 },
        { reviewer: 'kevin', stars: 4 },
      ],
    },
    {
      title: 'Parable of the Sower',
      isbn: 'OB-1993-SOWER',
      price: '13.75',
      publisher: 'Four Walls Eight Windows',
      tags: ['science-fiction', 'dystopia'],
      reviews: [{ reviewer: 'lauren', stars: 5, body: 'God is change.' }],
    },
  ],
}

const REVISION: ReviseAuthorInput = {
  bio: 'Earthsea, the Hainish Cycle, and much more.',
  discountPercent: 10,
  dropReviewsBelow: 3,
  retire: ['LG-1974-DISPOSSESSED'],
  retag: [{ isbn: 'LG-1968-EARTHSEA', tags: ['fantasy', 'classic', 'magic'] }],
  move: [{ isbn: 'LG-1969-LEFTHAND', publisher: 'Gollancz' }],
}

/** An author whose books name tags and publishers some of which exist: got or created by the flush. */
const JEMISIN: CreateAuthorInput = {
  name: 'N. K. Jemisin',
  books: [
    {
      title: 'The Fifth Season',
      isbn: 'NJ-2015-FIFTH',
      price: '10.50',
      publisher: 'Orbit',
      tags: ['fantasy', 'science-fiction', 'broken-earth'],
      reviews: [{ reviewer: 'essun', stars: 5 }],
    },
    {
      title: 'The City We Became',
      isbn: 'NJ-2020-CITY',
      price: '16.00',
      publisher: 'Ace',
      tags: ['fantasy', 'new-york'],
      reviews: [],
    },
  ],
}

/**
 * Sends the scripted requests to the bookstore at `baseUrl`, one after the other: create two authors
 * with books, reviews and tags; revise the first (edits and deletes across tables); read it; delete
 * the second; read it again (404); create a third whose books name tags and publishers that exist and
 * others that do not (got or created by its flush: the request is one round trip).
 *
 * @example
 * const results = await runScript(server.url, counter)
 */
export async function runScript(baseUrl: string, counter?: RoundTripCounter): Promise<StepResult[]> {
  const results: StepResult[] = []
  const agent = new Agent({ keepAlive: true, maxSockets: 1 })
  const send = async (method: string, path: string, body?: unknown): Promise<StepResult> => {
    counter?.reset()
    const started = performance.now()
    const res = await exchange(agent, method, `${baseUrl}${path}`, body)
    const json = JSON.parse(res.text) as {
      result?: unknown
      did?: string[]
      flush?: FlushReport
      error?: string
    }
    const ms = performance.now() - started
    const step: StepResult = {
      method,
      path,
      status: res.status,
      did: json.did ?? [],
      flush: json.flush,
      error: json.error,
      ms,
      roundTrips: counter?.read().roundTrips,
      result: json.result,
    }
    results.push(step)
    return step
  }
  const first = (await send('POST', '/authors', LE_GUIN)).result as { id: number }
  const second = (await send('POST', '/authors', BUTLER)).result as { id: number }
  await send('PATCH', `/authors/${first.id}`, REVISION)
  await send('GET', `/authors/${first.id}`)
  await send('DELETE', `/authors/${second.id}`)
  await send('GET', `/authors/${second.id}`)
  await send('POST', '/authors', JEMISIN)
  agent.destroy()
  return results
}

/**
 * One request on a kept-alive connection, its JSON body as text. `node:http` rather than `fetch`:
 * the script shares the server's thread, and undici's client costs a few tenths of a millisecond
 * of it per request, which the request's time by the clock would count.
 */
function exchange(
  agent: Agent,
  method: string,
  url: string,
  body: unknown,
): Promise<{ status: number; text: string }> {
  const payload = body === undefined ? undefined : JSON.stringify(body)
  const headers: Record<string, string | number> =
    payload === undefined
      ? {}
      : { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) }
  return new Promise((resolve, reject) => {
    const req = request(url, { method, agent, headers }, (res) => {
      let text = ''
      res.setEncoding('utf8')
      res.on('data', (chunk: string) => {
        text += chunk
      })
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text }))
      res.on('error', reject)
    })
    req.on('error', reject)
    req.end(payload)
  })
}
