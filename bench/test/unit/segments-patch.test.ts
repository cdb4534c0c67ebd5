import { execFileSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { expect, test } from 'vitest'

const root = fileURLToPath(new URL('../../..', import.meta.url))
const patch = 'bench/tools/flush-segments.patch'

// `flush-segments.ts` measures nothing unless its patch applies to the core's source as it is: a
// change to the flush path that moves the lines it marks must refresh the patch (apply it with
// `git apply -3`, then save `git diff` of the three files as the patch).
test.skipIf(!existsSync(`${root}.git`))('the flush-segments patch applies to the core as it is', () => {
  const check = () =>
    execFileSync('git', ['apply', '--check', patch], { cwd: root, encoding: 'utf8', stdio: 'pipe' })
  expect(check).not.toThrow()
})
