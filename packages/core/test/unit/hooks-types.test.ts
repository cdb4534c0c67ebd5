import { describe, expectTypeOf, it } from 'vitest'
import type {
  EntityManager,
  EntityManagerOptions,
  FlushHooks,
  FlushReport,
  TableHooks,
} from '../../src/index.ts'

// The hooks module does not import the facade: the package's index gives the hooks its entity manager.
describe('hook types', () => {
  it('give hooks the entity manager, in connect options and as exported types', () => {
    type BeforeFlush = NonNullable<NonNullable<EntityManagerOptions['hooks']>['beforeFlush']>
    expectTypeOf<Parameters<BeforeFlush>[0]>().toEqualTypeOf<EntityManager>()
    expectTypeOf<Parameters<NonNullable<FlushHooks['afterCommit']>>>().toEqualTypeOf<
      [FlushReport, EntityManager]
    >()
    expectTypeOf<Parameters<NonNullable<TableHooks['beforeCreate']>>[1]>().toEqualTypeOf<EntityManager>()
    expectTypeOf<Parameters<typeof import('../../src/index.ts').EntityManager.connect>[1]>().toEqualTypeOf<
      EntityManagerOptions | undefined
    >()
  })
})
