/** Thrown inside a step to end the action as rejected with a named rule (the step machine writes it). */
export class Refusal extends Error {
  readonly kind = 'refusal';
  constructor(
    readonly reason: string,
    readonly detail: string,
  ) {
    super(`${reason}: ${detail}`);
  }
}
