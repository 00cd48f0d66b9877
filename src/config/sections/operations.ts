import { z } from 'zod';
import { portNumber, positiveInt } from '../formats.ts';
import { key } from '../key.ts';

/** Running the daemon: the ledger, the ops server, shutdown and logs. */

export const ledgerSection = {
  maxLen: key({
    doc: 'Approximate number of entries the ledger stream keeps (XADD MAXLEN ~); older entries are trimmed.',
    schema: z.int().min(100),
    default: 100_000,
    kind: 'int',
    env: 'STRATD_LEDGER_MAX_LEN',
    format: 'an integer of at least 100',
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
};
