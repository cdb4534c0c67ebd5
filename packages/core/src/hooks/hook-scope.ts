import { AsyncLocalStorage } from 'node:async_hooks'

/** Marks the code a flush hook runs, and what it awaits: its changes are the hooks' (see `checkpoint.ts`). */
const scope = new AsyncLocalStorage<true>()

/**
 * Runs a flush hook so that what it changes, synchronously or after an await, is known as the hooks'
 * own ({@link inHook}), apart from what the application changes meanwhile from its other tasks.
 *
 * @example
 * await inHookScope(() => hook(entity, em))
 */
export function inHookScope<T>(run: () => T): T {
  return scope.run(true, run)
}

/**
 * Whether the code running now is a flush hook's (see {@link inHookScope}).
 *
 * @example
 * if (!inHook()) outsideHooks.touched(state, column) // the application's own change
 */
export function inHook(): boolean {
  return scope.getStore() === true
}
