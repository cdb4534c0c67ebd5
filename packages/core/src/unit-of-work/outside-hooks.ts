import { inHook } from '../hooks/hook-scope.ts'
import type { EntityState } from '../track/entity-state.ts'

/**
 * What the application changed itself while a flush's hooks ran (from a task of its own, or right
 * after calling `flush()`): a checkpoint's `undo` takes back the hooks' changes only (see
 * `checkpoint.ts`), and leaves these pending. Changes made by a hook (see `inHookScope`) are not
 * recorded.
 *
 * @example
 * uow.outsideHooks = new OutsideHooks() // the hooks start
 * uow.outsideHooks.touched(state, 'n')  // `entity.n = 42` from the application
 * uow.outsideHooks.columns.get(state)   // Set { 'n' }: kept by an undo
 */
export class OutsideHooks {
  /** The columns the application assigned, by entity. */
  readonly columns = new Map<EntityState, Set<string>>()
  /** The entities the application created, removed or upserted. */
  readonly entities = new Set<EntityState>()

  /** `state`'s `column` was assigned: recorded unless a hook did it. */
  touched(state: EntityState, column: string): void {
    if (inHook()) return
    let columns = this.columns.get(state)
    if (columns === undefined) {
      columns = new Set()
      this.columns.set(state, columns)
    }
    columns.add(column)
  }

  /** `state` was created, removed or upserted: recorded unless a hook did it. */
  changed(state: EntityState): void {
    if (!inHook()) this.entities.add(state)
  }
}
