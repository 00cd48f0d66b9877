// Node flags every production start of the daemon uses: `npm start`, pm2 (ecosystem.config.cjs),
// the Docker image, and the benchmark (which must measure what production runs). They cannot be
// set from inside the process (the heap is configured before any code runs), so each entry point
// names them; test/ops/deployment-files.test.ts keeps them all equal to this list.
//
// --max-semi-space-size=4: V8's young generation grows to 2 × 16 MB under allocation (the
//   default maximum). Half of that took 12-16 MB off a daemon's peak RSS with no CPU per action
//   the benchmark could tell from run-to-run noise (bench/daemon.ts, one daemon: peak 145 -> 129
//   MB at default cadence, 171 -> 159 MB polling every source every second; 16.2 -> 16.1 ms CPU
//   per landed action). A quarter (4 MB) took another 6-8 MB off three daemons polling every
//   source every second (peak 145-147 -> 136-141 MB; 15.0-15.9 -> 15.5-16.1 ms per landed
//   action) and ~9 MB off one daemon at saturation, for ~10 % more CPU there (3.5 -> 3.9 ms per
//   landed action at 250 decisions/s): the peak had reached the 150 MB goal, the CPU had room.
//
// --heap-growing-percent=25: after each full collection V8 lets the old generation grow to up to 4 ×
//   what survived it before the next. The daemon's live heap is ~45 MB, but every poll's parsed
//   reply outlives a young-generation collection or two and is promoted, so the old generation
//   filled with that garbage up to its limit: the peak under load was set by the growing factor,
//   not by what the daemon holds. 1.25 × keeps the peak in proportion to the live heap (it is a
//   factor, not a ceiling: a larger deployment still gets the heap it needs). Measured with
//   bench/daemon.ts, 3 daemons polling every source every second: peak RSS 182 -> 149 MB; CPU per
//   landed action 10.9 -> 12.0 ms and daemon CPU when idle 86 -> 76 ms/s, both within run-to-run noise.
export const NODE_FLAGS = ['--max-semi-space-size=4', '--heap-growing-percent=25'];
