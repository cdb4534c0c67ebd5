import { defineConfig } from 'vitest/config'

// Workspace packages are resolved to their TypeScript sources through the `@pipeflush/source` export condition (named so that no other tool picks it),
// so tests, benches and examples run without a build step.
const resolve = { conditions: ['@pipeflush/source'] }
const ssr = { resolve: { conditions: ['@pipeflush/source'] } }

/**
 * The files that load the machine for minutes, one at a time after all the others: each fault sweep
 * runs its cases in child processes, several at once, and checks each flush settles within a second of
 * its socket's end; the chaos soak drives pools at full speed for its duration. Beside other files,
 * they would slow those files' deadlines, and be slowed by them.
 */
const SERIAL = [
  'packages/core/test/integration/faults/sweep-*.test.ts',
  'packages/core/test/integration/soak/**/*.test.ts',
]

/**
 * The other files wait on the network, the server and their timers far more than they compute: several
 * run at once (each on its own database of the one server; none changes the server's settings).
 */
const AT_ONCE = 3

const integration = {
  include: ['packages/*/test/integration/**/*.test.ts', 'examples/*/test/**/*.test.ts', 'bench/**/*.test.ts'],
  exclude: ['**/test/unit/**', '**/node_modules/**'],
  globalSetup: ['./packages/testkit/src/vitest/global-setup.ts'],
  testTimeout: 60_000,
  hookTimeout: 120_000,
}

/** A project: the workspace's sources resolved, run in `group` (lower first) by `workers` files at a time. */
function project(group: number, workers: number, test: Record<string, unknown> & { name: string }) {
  return {
    resolve,
    ssr,
    test: { environment: 'node', ...test, maxWorkers: workers, sequence: { groupOrder: group } },
  }
}

export default defineConfig({
  resolve,
  ssr,
  test: {
    projects: [
      project(0, AT_ONCE, {
        name: 'unit',
        benchmark: { include: [] },
        include: [
          'packages/*/test/unit/**/*.test.ts',
          'examples/*/test/unit/**/*.test.ts',
          'bench/test/unit/**/*.test.ts',
        ],
      }),
      project(0, AT_ONCE, {
        ...integration,
        name: 'integration',
        // `vitest bench` runs a "(bench)" copy of this project: its global setup gives the benches a database.
        benchmark: { include: ['bench/**/*.bench.ts'] },
        exclude: [...integration.exclude, ...SERIAL],
      }),
      project(1, 1, { ...integration, name: 'serial', benchmark: { include: [] }, include: SERIAL }),
    ],
  },
})
