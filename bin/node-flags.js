// Node flags every production start of the daemon uses: `npm start`, pm2 (ecosystem.config.cjs),
// the Docker image, and the benchmark (which must measure what production runs). They cannot be
// set from inside the process (the heap is configured before any code runs), so each entry point
// names them; test/ops/deployment-files.test.ts keeps them all equal to this list.
//
// --max-semi-space-size=8: V8's young generation grows to 2 × 16 MB under allocation (the
//   default maximum); half of that took 12-16 MB off a daemon's peak RSS with no CPU per action
//   the benchmark could tell from run-to-run noise (bench/daemon.ts, one daemon: peak 145 -> 129
//   MB at default cadence, 171 -> 159 MB polling every source every second; 16.2 -> 16.1 ms CPU
//   per landed action).
export const NODE_FLAGS = ['--max-semi-space-size=8'];
