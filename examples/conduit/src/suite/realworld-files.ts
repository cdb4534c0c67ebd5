import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { repoRoot } from '@pipeflush/testkit'

/**
 * Where the RealWorld spec and its test suite are: `shared/realworld/` beside the repository's root
 * (the checkout is `<x>/main`, the shared files `<x>/shared`). They are test data, not part of the
 * repository.
 */
export function realworldDir(): string {
  return join(repoRoot(), '..', 'shared', 'realworld')
}

/** The suite's Postman collection, or why it cannot be run (the folder or the file is absent). */
export function findCollection(): { readonly path: string } | { readonly missing: string } {
  const path = join(realworldDir(), 'Conduit.postman_collection.json')
  if (existsSync(path)) return { path }
  return { missing: `the RealWorld suite is not at ${path} (shared/realworld beside the repository)` }
}
