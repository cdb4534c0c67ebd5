/** Where a database came from. */
export type PostgresProvider = 'env' | 'container' | 'embedded'

/** A running PostgreSQL: a superuser connection URL on loopback, and how to stop it. */
export interface StartedPostgres {
  /** Superuser URL, e.g. `postgres://postgres:secret@127.0.0.1:5433/postgres`. Contains a password: print it with `redactUrl`. */
  readonly url: string
  readonly host: string
  readonly port: number
  readonly provider: PostgresProvider
  /** Server version, e.g. `18.1`. */
  readonly version: string
  /** Stops what was started (a no-op for `env`). Safe to call twice. */
  stop(): Promise<void>
}

export interface StartPostgresOptions {
  /** Ignore DATABASE_URL even if set. */
  readonly ignoreEnv?: boolean
  /** Skip the Docker probe (used by tests of the provider order). */
  readonly skipDocker?: boolean
  /** Extra `-c name=value` server settings for started servers. */
  readonly settings?: Readonly<Record<string, string>>
}
