import type { z } from 'zod';

type HttpMethod = 'GET' | 'POST' | 'PATCH' | 'DELETE';
export type Product = 'tokens' | 'perps' | 'ultra' | 'trigger' | 'recurring' | 'studio';
type ParamLocation = 'path' | 'query' | 'body';

/**
 * What a caller does with an operation's result, which decides how it may be retried:
 * - `read`: no side effect, retried freely;
 * - `build`: returns an unsigned transaction, no side effect until signed and sent, retried freely;
 * - `submit`: hands a signed transaction to the service; a reply that never came is *ambiguous*,
 *   so only provably-unsent failures (429, connection refused) are retried by the client.
 */
type OperationEffect = 'read' | 'build' | 'submit';

export interface OperationDef<Req extends z.ZodType = z.ZodType, Res extends z.ZodType = z.ZodType> {
  readonly id: string;
  readonly product: Product;
  readonly method: HttpMethod;
  /** Path template; `{name}` segments are filled from request fields of the same name. */
  readonly path: string;
  /** Further paths the service answers for this operation (the venue serves them too). */
  readonly aliases?: readonly string[];
  readonly summary: string;
  readonly request: Req;
  readonly response: Res;
  /** Fields sent somewhere other than the method's default (query for GET, body otherwise). */
  readonly placement?: Readonly<Record<string, readonly ParamLocation[]>>;
  /** May be sent to the lite base without a key (spec section 5). */
  readonly lite: boolean;
  readonly effect: OperationEffect;
  readonly deprecated?: boolean;
}

export function defineOperation<const Id extends string, Req extends z.ZodType, Res extends z.ZodType>(
  def: OperationDef<Req, Res> & { id: Id },
): OperationDef<Req, Res> & { id: Id } {
  return def;
}

/** Names of `{param}` segments in a path template, in order. */
export function pathParams(template: string): string[] {
  return [...template.matchAll(/\{(\w+)\}/g)].map((m) => m[1] as string);
}

/** Where each request field goes, after the method default and the operation's overrides. */
export function locationsOf(op: OperationDef, field: string): readonly ParamLocation[] {
  if (pathParams(op.path).includes(field)) return ['path'];
  const override = op.placement?.[field];
  if (override) return override;
  return op.method === 'GET' ? ['query'] : ['body'];
}
