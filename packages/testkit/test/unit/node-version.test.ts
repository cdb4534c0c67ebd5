import { describe, expect, test } from 'vitest'

describe('the toolchain', () => {
  test('tests run on the Node 24 that the `node` devDependency brings, whatever Node the machine has', () => {
    expect(process.versions.node.split('.')[0]).toBe('24')
  })
})
