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
    // Processes the tests start (bin/stratd.js) run the TypeScript sources, so a test run never
    // waits for a build; test/e2e/daemon-out-of-the-box.test.ts runs what `npm start` runs (dist/).
    // STRATD_RUNTIME=dist npm test runs every process from dist/ instead.
    env: { STRATD_RUNTIME: process.env.STRATD_RUNTIME ?? 'src' },
  },
});
