/**
 * A request the market refuses. `invalid_argument` is a malformed or impossible request (HTTP
 * 400 in every product's format); `business` is a rule of the venue (perps 422 with `code`);
 * `not_found` names an account that does not exist; `forbidden` an account of someone else.
 */
type MarketErrorKind = 'invalid_argument' | 'business' | 'not_found' | 'forbidden';

export class MarketError extends Error {
  override readonly name = 'MarketError';

  constructor(
    readonly kind: MarketErrorKind,
    /** Snake-case code of the product (perps 422 codes of api-facts section 3). */
    readonly code: string,
    message: string,
    readonly metadata: Readonly<Record<string, unknown>> | null = null,
  ) {
    super(message);
  }
}

export function invalidArgument(message: string, metadata: Record<string, unknown> | null = null): MarketError {
  return new MarketError('invalid_argument', 'invalid_argument', message, metadata);
}

export function businessError(code: string, message: string, metadata: Record<string, unknown> | null = null): MarketError {
  return new MarketError('business', code, message, metadata);
}
