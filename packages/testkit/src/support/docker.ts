import { existsSync } from 'node:fs'

/**
 * Whether a Docker engine answers, as testcontainers would find it. Cheap when there is none: without
 * DOCKER_HOST and without a socket file, it answers false without loading testcontainers.
 */
export async function dockerEngineAnswers(timeoutMs = 5_000): Promise<{ ok: boolean; reason: string }> {
  if (process.env['PIPEFLUSH_NO_DOCKER'] === '1') return { ok: false, reason: 'PIPEFLUSH_NO_DOCKER=1' }
  const sockets = ['/var/run/docker.sock', `${process.env['HOME'] ?? ''}/.docker/run/docker.sock`]
  if (!process.env['DOCKER_HOST'] && !sockets.some((s) => existsSync(s))) {
    return { ok: false, reason: 'no DOCKER_HOST and no Docker socket (/var/run/docker.sock)' }
  }
  try {
    const { getContainerRuntimeClient } = await import('testcontainers')
    const client = await withTimeout(getContainerRuntimeClient(), timeoutMs)
    return { ok: true, reason: `Docker engine ${client.info.containerRuntime.host}` }
  } catch (e) {
    return {
      ok: false,
      reason: `Docker engine did not answer: ${e instanceof Error ? e.message.split('\n')[0] : String(e)}`,
    }
  }
}

function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  return new Promise((resolve, reject) => {
    const t = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms)
    p.then(
      (v) => {
        clearTimeout(t)
        resolve(v)
      },
      (e: unknown) => {
        clearTimeout(t)
        reject(e)
      },
    )
  })
}
