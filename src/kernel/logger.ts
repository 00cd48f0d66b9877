import { pino, type Logger, type DestinationStream } from 'pino';
import pretty from 'pino-pretty';
import { ONE_LINE_PRETTY } from './pretty-line.ts';

export type { Logger };

/**
 * Paths pino censors in every log line. The wallet key and the API key must never reach a
 * log (standing rule); these cover the names they travel under anywhere in a logged object.
 */
const REDACT_PATHS = [
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
  // Notification targets: the Telegram bot token, webhook URLs (tokens in their paths), headers.
  'botToken',
  '*.botToken',
  'webhookUrl',
  '*.webhookUrl',
  // An ioredis error carries the command it failed on: AUTH and HELLO hold the Redis password.
  'err.command.args',
  '*.err.command.args',
  'error.command.args',
  '*.error.command.args',
];

type LogFormat = 'auto' | 'json' | 'pretty';

interface LoggerOptions {
  readonly level?: string;
  readonly name?: string;
  readonly destination?: DestinationStream;
  /** log.format: auto = pretty when stdout is a terminal, JSON lines otherwise (files, pm2, Docker). */
  readonly format?: LogFormat;
}

/** Whether `format` means human-readable lines on this stdout. */
export function wantsPretty(format: LogFormat = 'auto', isTty: boolean = process.stdout.isTTY === true): boolean {
  return format === 'pretty' || (format === 'auto' && isTty);
}

/**
 * The one way to make a logger: secrets redacted, then JSON lines, or — for a person at a
 * terminal — coloured one-line records (pino-pretty, in-process and synchronous, so the last
 * lines before an exit are not lost). Redaction happens before either format.
 */
export function createLogger(options: LoggerOptions = {}): Logger {
  const destination = options.destination ?? (wantsPretty(options.format) ? pretty({ colorize: process.stdout.isTTY === true, translateTime: 'SYS:yyyy-mm-dd HH:MM:ss.l', ignore: 'pid,hostname,name', sync: true, ...ONE_LINE_PRETTY }) : undefined);
  return pino(
    {
      name: options.name ?? 'stratd',
      level: options.level ?? process.env.STRATD_LOG_LEVEL ?? 'info',
      redact: { paths: REDACT_PATHS, censor: '[redacted]' },
      base: { pid: process.pid },
      timestamp: pino.stdTimeFunctions.isoTime,
    },
    destination,
  );
}

/** A logger that writes nothing, for library code used without one. */
export const silentLogger: Logger = pino({ level: 'silent' });
