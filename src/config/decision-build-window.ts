/**
 * How long a decision stays buildable (ms): the executor refuses to build one decided longer ago
 * (stale_decision), and a settled record must stay in Redis at least this long
 * (archive.minAgeMs), or a job delivered again after its record left would execute a second time.
 */
export const DECISION_BUILD_WINDOW_MS = 120_000;
