import * as core from '@pipeflush/core'
import { describe, expect, it } from 'vitest'
import { isPipeflushError, PipeflushError } from '../../src/index.ts'

// An application whose install keeps each package's dependencies apart (pnpm, npm's linked installs)
// imports the errors from this package: they are core's own.
describe('the errors of @pipeflush/core, from @pipeflush/drizzle', () => {
  it("are core's own class and guard", () => {
    expect(PipeflushError).toBe(core.PipeflushError)
    expect(isPipeflushError).toBe(core.isPipeflushError)
    expect(isPipeflushError(new core.PipeflushError('NOT_FOUND', 'x'), 'NOT_FOUND')).toBe(true)
  })
})
