import { defineConfig } from 'vitest/config'

// Workspace packages are resolved to their TypeScript sources through the `@pipeflush/source` export condition (named so that no other tool picks it),
// so tests, benches and examples run without a build step.
const resolve = { conditions: ['@pipeflush/source'] }

export default defineConfig({
  resolve,
  ssr: { resolve: { conditions: ['@pipeflush/source'] } },
  test: {
    projects: [
      {
        resolve,
        ssr: { resolve: { conditions: ['@pipeflush/source'] } },
        test: {
          name: 'unit',
          benchmark: { include: [] },
          include: [
            'packages/*/test/unit/**/*.test.ts',
            'examples/*/test/unit/**/*.test.ts',
            'bench/test/unit/**/*.test.ts',
          ],
          environment: 'node',
        },
      },
      {
        resolve,
        ssr: { resolve: { conditions: ['@pipeflush/source'] } },
        test: {
          name: 'integration',
          // `vitest bench` runs a "(bench)" copy of this project: its global setup gives the benches a database.
          benchmark: { include: ['bench/**/*.bench.ts'] },
          include: [
            'packages/*/test/integration/**/*.test.ts',
            'examples/*/test/**/*.test.ts',
            'bench/**/*.test.ts',
          ],
          exclude: ['**/test/unit/**', '**/node_modules/**'],
          environment: 'node',
          globalSetup: ['./packages/testkit/src/vitest/global-setup.ts'],
          testTimeout: 60_000,
          hookTimeout: 120_000,
        },
      },
    ],
  },
})
