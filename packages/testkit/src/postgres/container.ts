/** A PostgreSQL container started through testcontainers (machines with a Docker engine). */
export interface ContainerServer {
  readonly url: string
  readonly host: string
  readonly port: number
  stop(): Promise<void>
}

/** Starts `postgres:18-alpine` with testcontainers, bound to the loopback interface. */
export async function startContainer(
  settings: Readonly<Record<string, string>> = {},
): Promise<ContainerServer> {
  const { PostgreSqlContainer } = await import('@testcontainers/postgresql')
  const container = await new PostgreSqlContainer(
    process.env['PIPEFLUSH_POSTGRES_IMAGE'] ?? 'postgres:18-alpine',
  )
    .withCommand([
      'postgres',
      ...Object.entries({ fsync: 'off', max_connections: '300', ...settings }).flatMap(([k, v]) => [
        '-c',
        `${k}=${v}`,
      ]),
    ])
    .start()
  const host = container.getHost()
  const port = container.getPort()
  const url = `postgres://${container.getUsername()}:${encodeURIComponent(container.getPassword())}@${host}:${port}/${container.getDatabase()}`
  return {
    url,
    host,
    port,
    async stop() {
      await container.stop()
    },
  }
}
