import { z } from 'zod';
import { nonNegativeInt, portNumber, positiveInt } from '../formats.ts';
import { DECISION_BUILD_WINDOW_MS } from '../decision-build-window.ts';
import { key } from '../key.ts';

/** Running the daemon: the ledger, the ops server, shutdown and logs. */

export const ledgerSection = {
  maxLen: key({
    doc: 'Most entries the ledger stream keeps in Redis: the archiver appends older ones to the audit archive (archive.dir), then trims them. Nothing trims an entry that is not archived.',
    schema: positiveInt,
    default: 100_000,
    kind: 'int',
    env: 'STRATD_LEDGER_MAX_LEN',
    format: 'a positive integer',
  }),
  maxAgeMs: key({
    doc: 'Ledger entries older than this leave Redis for the audit archive whatever their number.',
    schema: positiveInt,
    default: 604_800_000,
    kind: 'int',
    format: 'a positive integer (ms; default 7 days)',
  }),
};

/** The audit archive: what leaves Redis is appended to JSON-lines files first (src/pipeline/audit-archiver.ts). */
export const archiveSection = {
  dir: key({
    doc: 'Folder of the audit archive: settled action records and ledger entries are appended there (one subfolder per redis.prefix, JSON lines, rotated by size and UTC day, gzip-compressed when rotated) before they leave Redis. Relative to the working directory.',
    schema: z.string().min(1),
    default: 'var/archive',
    kind: 'string',
    env: 'STRATD_ARCHIVE_DIR',
    format: 'a folder path',
  }),
  maxFileBytes: key({
    doc: 'An archive file is rotated (compressed, a new one begun) once it holds this many bytes, and at each new UTC day.',
    schema: positiveInt,
    default: 67_108_864,
    kind: 'int',
    format: 'a positive integer (bytes; default 64 MiB)',
  }),
  everyMs: key({
    doc: 'How often the archiver looks for what is beyond the bounds (one process of the deployment at a time).',
    schema: positiveInt,
    default: 5_000,
    kind: 'int',
    format: 'a positive integer (ms)',
  }),
  retentionDays: key({
    doc: 'Compressed archive files (.jsonl.gz) of UTC days older than this many days are deleted (each deletion logged), by the process holding the archiver\'s lease, hourly. 0 keeps the audit trail forever: nothing is deleted unless an operator sets how long to keep it. The plain file being appended is never deleted.',
    schema: nonNegativeInt,
    default: 0,
    kind: 'int',
    format: 'a non-negative integer (days; 0 = keep forever)',
  }),
  minFreeBytes: key({
    doc: 'Below this many free bytes on the archive\'s filesystem (statfs), one archive_disk_low warning is raised; it clears once 125 % of it is free again. 0: no alert (the gauge stratd_archive_disk_free_bytes is still set). A full disk stops the archive, and then nothing leaves Redis.',
    schema: nonNegativeInt,
    default: 1_073_741_824,
    kind: 'int',
    format: 'a non-negative integer (bytes; default 1 GiB; 0 = no alert)',
  }),
  minAgeMs: key({
    doc: 'A settled action record stays in Redis at least this long, whatever execution.maxSettledRecords says: at least as long as a decision stays buildable (2 minutes, the floor), so an action job delivered again finds its record instead of executing a second time.',
    schema: z.int().min(DECISION_BUILD_WINDOW_MS, { message: `must be at least ${DECISION_BUILD_WINDOW_MS} ms (a decision stays buildable 2 minutes: a job delivered again after its record left Redis would execute a second time)` }),
    default: 180_000,
    kind: 'int',
    format: 'an integer of at least 120000 (ms)',
  }),
};

export const opsSection = {
  host: key({
    doc: 'Interface of the ops server (health, metrics, status, control). Loopback by default; any other interface needs ops.controlToken.',
    schema: z.string().min(1),
    default: '127.0.0.1',
    kind: 'string',
    env: 'STRATD_OPS_HOST',
    format: 'a host name or address',
  }),
  port: key({
    doc: 'Port of the ops server (0 = any free port).',
    schema: portNumber,
    default: 9464,
    kind: 'int',
    env: 'STRATD_OPS_PORT',
    format: 'a port 0-65535',
  }),
  allowedHosts: key({
    doc: 'Host names the ops server answers to, besides IP addresses and localhost (a DNS-rebinding page sends its own name as Host). A request with another Host needs the control token.',
    schema: z.array(z.string().min(1)),
    default: [],
    kind: 'list',
    env: 'STRATD_OPS_ALLOWED_HOSTS',
    format: 'a list of host names (comma-separated in env/--set)',
  }),
  controlToken: key({
    doc: 'Bearer token of the ops server\'s control endpoints (POST /control/pause, /control/resume). Empty: they are refused (stratd pause/resume still work through Redis). Required when ops.host is beyond loopback.',
    schema: z.string(),
    default: '',
    kind: 'string',
    env: 'STRATD_CONTROL_TOKEN',
    sensitive: true,
    format: 'a long random string',
    fix: 'export STRATD_CONTROL_TOKEN=$(openssl rand -hex 32)',
  }),
};

export const shutdownSection = {
  graceMs: key({
    doc: 'On SIGTERM/SIGINT: time for in-flight work to reach a persisted state before the process exits (pm2 kill_timeout and Docker stop timeout must be longer).',
    schema: positiveInt,
    default: 15_000,
    kind: 'int',
    env: 'STRATD_SHUTDOWN_GRACE_MS',
    format: 'a positive integer (ms)',
  }),
};

export const logSection = {
  level: key({
    doc: 'pino log level.',
    schema: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']),
    default: 'info',
    kind: 'string',
    env: 'STRATD_LOG_LEVEL',
    format: 'one of fatal, error, warn, info, debug, trace, silent',
  }),
  format: key({
    doc: 'Log line format: auto (coloured, human-readable lines when stdout is a terminal; JSON lines otherwise, for files, pm2 and Docker), json, or pretty.',
    schema: z.enum(['auto', 'json', 'pretty']),
    default: 'auto',
    kind: 'string',
    env: 'STRATD_LOG_FORMAT',
    format: 'one of auto, json, pretty',
  }),
};
