import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { isPipeflushError } from '@pipeflush/core'
import type { UnitOfWorkFactory } from '@pipeflush/example-support'
import type { DB } from '../schema.ts'
import { inRequestSpan } from '../tracing.ts'
import { createAuthor, deleteAuthor, getAuthor, type Reply, reviseAuthor } from './handlers.ts'
import { createAuthorInput, reviseAuthorInput } from './inputs.ts'
import { BadRequest } from './validate.ts'

type Route = (factory: UnitOfWorkFactory<DB>, params: string[], body: unknown) => Promise<Reply>

const ROUTES: readonly { method: string; path: RegExp; name: string; handle: Route }[] = [
  {
    method: 'POST',
    path: /^\/authors$/,
    name: 'POST /authors',
    handle: (f, _, body) => createAuthor(f, createAuthorInput(body)),
  },
  {
    method: 'GET',
    path: /^\/authors\/(\d+)$/,
    name: 'GET /authors/:id',
    handle: (f, [id]) => getAuthor(f, Number(id)),
  },
  {
    method: 'PATCH',
    path: /^\/authors\/(\d+)$/,
    name: 'PATCH /authors/:id',
    handle: (f, [id], body) => reviseAuthor(f, Number(id), reviseAuthorInput(body)),
  },
  {
    method: 'DELETE',
    path: /^\/authors\/(\d+)$/,
    name: 'DELETE /authors/:id',
    handle: (f, [id]) => deleteAuthor(f, Number(id)),
  },
]

/** A running bookstore API. */
export interface RunningServer {
  /** e.g. `http://127.0.0.1:41234` */
  readonly url: string
  close(): Promise<void>
}

/**
 * Serves the bookstore API with `node:http` on 127.0.0.1 (a free port unless given). Every request
 * gets its own unit of work from `factory` (see the handlers).
 *
 * @example
 * const server = await startServer(factory)
 * await fetch(`${server.url}/authors/1`)
 * await server.close()
 */
export async function startServer(factory: UnitOfWorkFactory<DB>, port = 0): Promise<RunningServer> {
  const server: Server = createServer((req, res) => {
    void handle(factory, req, res)
  })
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(port, '127.0.0.1', resolve)
  })
  const { port: bound } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${bound}`,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((e) => (e ? reject(e) : resolve()))
        server.closeAllConnections()
      }),
  }
}

async function handle(
  factory: UnitOfWorkFactory<DB>,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  let reply: Reply
  try {
    const path = new URL(req.url ?? '/', 'http://localhost').pathname
    const route = ROUTES.find((r) => r.method === req.method && r.path.test(path))
    if (!route) {
      reply = { status: 404, body: { error: `no route ${req.method} ${path}` } }
    } else {
      const params = route.path.exec(path)!.slice(1)
      const body = await readJson(req)
      reply = await inRequestSpan(route.name, () => route.handle(factory, params, body))
    }
  } catch (e) {
    reply = errorReply(e)
  }
  const text = JSON.stringify(reply.body)
  res.writeHead(reply.status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(text),
  })
  res.end(text)
}

function errorReply(e: unknown): Reply {
  if (e instanceof BadRequest) return { status: 400, body: { error: e.message } }
  if (isPipeflushError(e, 'NOT_FOUND')) return { status: 404, body: { error: e.message, code: e.code } }
  if (
    isPipeflushError(e, 'OPTIMISTIC_LOCK') ||
    isPipeflushError(e, 'CONSTRAINT_VIOLATION') ||
    isPipeflushError(e, 'DUPLICATE_KEY')
  ) {
    return { status: 409, body: { error: e.message, code: e.code } }
  }
  const status = (e as { status?: unknown } | null)?.status
  if (typeof status === 'number') return { status, body: { error: (e as Error).message } }
  console.error(e)
  return { status: 500, body: { error: 'internal error' } }
}

async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = []
  for await (const chunk of req) chunks.push(chunk as Buffer)
  if (chunks.length === 0) return undefined
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown
  } catch {
    throw new BadRequest('the body must be JSON')
  }
}
