import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

// The SDK entries as the package exports them, for every importer (also strategy modules
// that tests copy outside the repository).
const sdk = (file: string) => fileURLToPath(new URL(`./src/sdk/${file}`, import.meta.url));

export default defineConfig({
  resolve: {
    alias: [
      { find: /^stratd\/strategy$/, replacement: sdk('strategy.ts') },
      { find: /^stratd\/testing$/, replacement: sdk('testing.ts') },
      { find: /^stratd\/replay$/, replacement: fileURLToPath(new URL('./src/replay/replay-recording.ts', import.meta.url)) },
    ],
  },
  test: {
    include: ['test/**/*.test.ts', 'strategies/**/*.test.ts'],
    // Tests share one Redis and spawn processes: keep files in a few forks so a
    // two-core CI machine is not oversubscribed.
    pool: 'forks',
    maxWorkers: 2,
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Processes the tests start (bin/stratd.js) run the TypeScript sources, so a run of chosen
    // files never waits for a build. `npm test` compiles dist/ when stale and sets
    // STRATD_RUNTIME=dist: the whole suite's hundreds of processes then start what production runs,
    // without tsx compiling in each (about 0.5 s of CPU per process, three minutes per suite).
    env: { STRATD_RUNTIME: process.env.STRATD_RUNTIME ?? 'src' },
  },
});
