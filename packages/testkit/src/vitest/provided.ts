/** What the integration project's global setup provides to every test file (`inject('pipeflush')`). */
export interface ProvidedServices {
  /** Superuser URL of the test PostgreSQL (contains a password). */
  readonly adminUrl: string
  readonly postgresHost: string
  readonly postgresPort: number
  readonly postgresProvider: string
  readonly postgresVersion: string
  /** HTTP API of the test toxiproxy. */
  readonly toxiproxyUrl: string
  readonly toxiproxyProvider: string
  readonly toxiproxyVersion: string
}

declare module 'vitest' {
  export interface ProvidedContext {
    pipeflush: ProvidedServices
  }
}
