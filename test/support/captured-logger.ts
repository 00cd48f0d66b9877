import { Writable } from 'node:stream';
import { createLogger, type Logger } from '../../src/kernel/logger.ts';

/** A real pino logger (redaction and all) whose output lines a test can read. */
export function capturedLogger(level: 'trace' | 'debug' | 'info' = 'trace'): { readonly lines: string[]; readonly logger: Logger } {
  const lines: string[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(...chunk.toString().split('\n').filter(Boolean));
      done();
    },
  });
  return { lines, logger: createLogger({ level, destination }) };
}
