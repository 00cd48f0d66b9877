import { pino, type Logger, type DestinationStream } from 'pino';

export type { Logger };

/**
 * Paths pino censors in every log line. The wallet key and the API key must never reach a
 * log (standing rule); these cover the names they travel under anywhere in a logged object.
 */
export const REDACT_PATHS = [
  'apiKey',
  '*.apiKey',
  'api.key',
  '*.api.key',
  'secretKey',
  '*.secretKey',
  'privateKey',
  '*.privateKey',
  'keypair',
  '*.keypair',
  'wallet.key',
  '*.wallet.key',
  'password',
  '*.password',
  'authorization',
  '*.authorization',
  'headers["x-api-key"]',
  '*.headers["x-api-key"]',
  'headers.authorization',
  '*.headers.authorization',
  'req.headers["x-api-key"]',
  'req.headers.authorization',
];

export interface LoggerOptions {
  readonly level?: string;
  readonly name?: string;
  readonly destination?: DestinationStream;
}

/** The one way to make a logger: JSON lines with secrets redacted. */
export function createLogger(options: LoggerOptions = {}): Logger {
  return pino(
    {
      name: options.name ?? 'stratd',
      level: options.level ?? process.env.STRATD_LOG_LEVEL ?? 'info',
      redact: { paths: REDACT_PATHS, censor: '[redacted]' },
      base: { pid: process.pid },
      timestamp: pino.stdTimeFunctions.isoTime,
    },
    options.destination,
  );
}

/** A logger that writes nothing, for library code used without one. */
export const silentLogger: Logger = pino({ level: 'silent' });
