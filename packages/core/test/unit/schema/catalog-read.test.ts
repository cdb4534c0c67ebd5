import { describe, expect, it } from 'vitest'
import { JIT_OFF, readSchema } from '../../../src/schema/read-schema.ts'

// The catalog query goes with JIT off, in its own message (a role with a short statement_timeout
// failed connect: the server compiled the query, which took most of a second).
describe('the catalog read', () => {
  it('turns JIT off in the message of the catalog query, and only there', async () => {
    const texts: string[] = []
    const driver = {
      toDriverError: (e: unknown) => e,
      async query(text: string) {
        texts.push(text)
        if (text.includes('current_schema()'))
          return [
            { current: 'public', schemas: '["public"]', datestyle: 'ISO, MDY', efd: 1, arraynulls: 'on' },
          ]
        return [{ catalog: '[]' }]
      },
    }
    await readSchema(driver, {})
    expect(texts).toHaveLength(2)
    expect(texts[0]).not.toContain('jit')
    expect(texts[1]?.startsWith(`${JIT_OFF};\nselect coalesce(json_agg(c)`)).toBe(true)
  })
})
