import { recordArgument } from './arguments.ts'
import { localSettingsOption } from './connection/local-settings.ts'
import { driverFor } from './drivers/driver-for.ts'
import { errors, withValuesShown } from './errors.ts'
import {
  type EntityManagerOptions,
  type ForkOptions,
  flushTimeoutOption,
  maxReplicaLagOption,
  observeOption,
  pipelineOption,
} from './options.ts'
import { ReplicaSet } from './read/replicas.ts'
import type { ManagerSettings } from './settings.ts'

/**
 * The settings of an entity manager connected with `options` (`INVALID_CONFIG` for a bad one).
 *
 * Checked once at connect; a fork reuses them (see {@link forkSettings}).
 */
export function managerSettings(options: EntityManagerOptions): ManagerSettings {
  return {
    mode: pipelineOption(options.pipeline),
    timeoutMs: flushTimeoutOption(options.flushTimeoutMs),
    errorValues: options.errorValues === true,
    observe: observeOption(options.tracing, options.logger),
    replicas: replicasOption(options.replicas, options.maxReplicaLagMs),
    localSettings: localSettingsOption(options.localSettings),
  }
}

/**
 * The settings of a fork of an entity manager with `settings`: the fork's options over them.
 *
 * A fork changes only what its own options give, and checks only those.
 */
export function forkSettings(settings: ManagerSettings, given: ForkOptions | undefined): ManagerSettings {
  // `fork()` without options (a fork per request) checks nothing.
  const options: ForkOptions =
    given === undefined ? NO_OPTIONS : recordArgument(given, 'fork: the options', 'INVALID_CONFIG')
  // A misspelled option would be dropped without a word: a request run without its tenant's settings.
  for (const name in options)
    if (!FORK_OPTION_NAMES.includes(name))
      throw errors.invalidConfig(
        `fork: unknown option "${name}"; the options are ${FORK_OPTION_NAMES.join(', ')}.`,
      )
  // Field by field (not a spread of `settings`, which a fork is given whole, its client's settings
  // with it): a fork is made per request.
  return {
    mode: options.pipeline === undefined ? settings.mode : pipelineOption(options.pipeline),
    timeoutMs:
      options.flushTimeoutMs === undefined ? settings.timeoutMs : flushTimeoutOption(options.flushTimeoutMs),
    errorValues: settings.errorValues,
    observe: settings.observe,
    replicas: settings.replicas,
    localSettings:
      options.localSettings === undefined
        ? settings.localSettings
        : localSettingsOption(options.localSettings, settings.localSettings),
  }
}

const NO_OPTIONS: ForkOptions = {}
const FORK_OPTION_NAMES: readonly string[] = ['pipeline', 'flushTimeoutMs', 'localSettings']

/**
 * `fn`'s result; its errors with the values they are about when `errorValues` is on (thrown, or
 * rejected by the promise `fn` returns).
 *
 * One place for the `errorValues` option, for every public method, sync or async.
 */
export function shownIf<T>(errorValues: boolean, fn: () => T): T {
  if (!errorValues) return fn()
  try {
    const result = fn()
    return (
      result instanceof Promise
        ? result.catch((e: unknown) => {
            throw withValuesShown(e)
          })
        : result
    ) as T
  } catch (e) {
    throw withValuesShown(e)
  }
}

/** The `replicas` and `maxReplicaLagMs` options: a set of the replicas' drivers, or undefined. */
function replicasOption(replicas: unknown, maxLag: unknown): ReplicaSet | undefined {
  const maxLagMs = maxReplicaLagOption(maxLag)
  if (replicas === undefined) return undefined
  if (!Array.isArray(replicas) || replicas.length === 0)
    throw errors.invalidConfig(
      'replicas must be a non-empty array of clients (postgres.js clients or pg.Pools).',
    )
  return new ReplicaSet(
    replicas.map((r) => driverFor(r)),
    maxLagMs,
  )
}
