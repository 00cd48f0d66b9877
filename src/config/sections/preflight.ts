import { z } from 'zod';
import { key } from '../key.ts';
import { nonNegativeInt, positiveInt } from '../formats.ts';

/** The start-up checks of live and dry-run mode (also `stratd doctor`): see src/ops/preflight.ts. */

/** mainnet-beta's genesis hash: what an RPC of the real cluster answers to getGenesisHash. */
export const MAINNET_GENESIS_HASH = '5eykt4UsFv8P8NJdTREpY1vzqKqZKvdpKuc147dw2N9d';

export const preflightSection = {
  genesisHash: key({
    doc: "Genesis hash the RPC must answer (getGenesisHash): the cluster stratd trades on. Default mainnet-beta's; a simulated venue (`stratd venue`) answers its own.",
    schema: z.string().regex(/^[1-9A-HJ-NP-Za-km-z]{32,44}$/, { message: 'expected a base58 genesis hash such as 5eykt4UsFv8P8NJdTREpY1vzqKqZKvdpKuc147dw2N9d' }),
    default: MAINNET_GENESIS_HASH,
    kind: 'string',
    env: 'STRATD_PREFLIGHT_GENESIS_HASH',
    format: 'a base58 genesis hash',
  }),
  minLamports: key({
    doc: 'Least SOL (in lamports) the wallet must hold for transaction fees before live or dry-run mode starts. 0 lets the check always pass.',
    schema: nonNegativeInt,
    default: 10_000_000,
    kind: 'int',
    env: 'STRATD_PREFLIGHT_MIN_LAMPORTS',
    format: 'a non-negative integer (lamports; 1 SOL = 1000000000)',
  }),
  maxClockSkewMs: key({
    doc: "Largest difference allowed between this machine's clock and the RPC's or API's (their HTTP Date header, 1 s resolution).",
    schema: positiveInt,
    default: 5_000,
    kind: 'int',
    env: 'STRATD_PREFLIGHT_MAX_CLOCK_SKEW_MS',
    format: 'a positive integer (ms)',
  }),
  timeoutMs: key({
    doc: 'Deadline of each preflight request: an unreachable API or RPC fails the start within it instead of being retried for ever.',
    schema: positiveInt,
    default: 3_000,
    kind: 'int',
    env: 'STRATD_PREFLIGHT_TIMEOUT_MS',
    format: 'a positive integer (ms)',
  }),
};
