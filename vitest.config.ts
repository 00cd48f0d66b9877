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
    // Tests share one Redis and spawn processes: files run in a few forks. Three on a two-core
    // machine: most of a file's time is spent waiting on the processes it started (the suite kept
    // about 1.3 of 2 cores busy with two), and the suite's timing checks tolerate a loaded host (it
    // passed with five other suites running beside it).
    pool: 'forks',
    maxWorkers: 3,
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Processes the tests start (bin/stratd.js) run the TypeScript sources, so a run of chosen
    // files never waits for a build. `npm test` compiles dist/ when stale and sets
    // STRATD_RUNTIME=dist: the whole suite's hundreds of processes then start what production runs,
    // without tsx compiling in each (about 0.5 s of CPU per process, three minutes per suite).
    env: { STRATD_RUNTIME: process.env.STRATD_RUNTIME ?? 'src' },
  },
});
