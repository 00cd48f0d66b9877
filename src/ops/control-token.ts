import { createHash, timingSafeEqual } from 'node:crypto';

/** Why a control request was refused; the HTTP status follows from it. */
type ControlRefusal = 'control_disabled' | 'missing_token' | 'wrong_token';

/**
 * Checks an `Authorization: Bearer <token>` header against ops.controlToken. With no token
 * configured every control request is refused (the kill switch stays reachable through
 * `stratd pause`, which needs Redis access, not just a local HTTP client). The comparison
 * hashes both sides first so it takes the same time whatever the length or content.
 */
export function checkControlToken(configured: string, header: string | undefined): ControlRefusal | undefined {
  if (configured === '') return 'control_disabled';
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header ?? '');
  if (!match?.[1]) return 'missing_token';
  const given = createHash('sha256').update(match[1]).digest();
  const expected = createHash('sha256').update(configured).digest();
  return timingSafeEqual(given, expected) ? undefined : 'wrong_token';
}

export function refusalStatus(refusal: ControlRefusal): number {
  return refusal === 'control_disabled' ? 403 : 401;
}

export function refusalMessage(refusal: ControlRefusal): string {
  switch (refusal) {
    case 'control_disabled':
      return 'control endpoints are disabled: set ops.controlToken (env STRATD_CONTROL_TOKEN), or use "stratd pause" / "stratd resume"';
    case 'missing_token':
      return 'send Authorization: Bearer <ops.controlToken>';
    case 'wrong_token':
      return 'the bearer token does not match ops.controlToken';
  }
}
