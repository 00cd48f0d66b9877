/**
 * What a strategy may log through: four levels, a message or structured fields and a
 * message. The daemon passes a pino logger tagged with the strategy's name; tests may pass
 * anything of this shape (`silentLogger` from stratd/testing).
 */
export interface LogFn {
  (message: string): void;
  (fields: Record<string, unknown>, message?: string): void;
}

export interface Logger {
  readonly debug: LogFn;
  readonly info: LogFn;
  readonly warn: LogFn;
  readonly error: LogFn;
}
