import { z } from 'zod';

/** A strategy's name: config keys, Redis keys and action ids carry it, so it is short and plain. */
export const strategyName = z.string().regex(/^[a-z0-9][a-z0-9-]{0,62}$/, { message: 'expected a strategy name: lower-case letters, digits and "-" (at most 63)' });
