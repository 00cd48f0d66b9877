import type { Product } from '../api/operation.ts';

/** Program ids of the live service (api-facts section 4). The venue builds with the same ids. */
export const PROGRAMS = {
  perps: 'PERPHjGBqRHArX4DySjwM6UJHiR3sWAatqfdBS2qQJu',
  trigger: 'j1o2qRpjcyUwEvwtcfhEQefh773ZgjxcVRry7LDqg5X',
  recurring: 'DCA265Vj8a9CEuX1eb1LWRnDT7uK6q1xMipnNyatn23M',
  aggregator: 'JUP6LkbZbjS1jKKwapdHNy74zcZ3tLUZoi5QNyVTaV4',
  referral: 'REFER4ZgmyYx9c6He5XfaTMiGfdLwRnkV4RPp9t9iF3',
  doves: 'DoVEsk76QybCEHQGzkvYPWLQu9gzNoZZZt3TPiL597e',
  dbc: 'dbcij3LWUppWqq96dh6gJWwBifmcGfLSB5D4DuSMaqN',
  computeBudget: 'ComputeBudget111111111111111111111111111111',
  token: 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA',
  token2022: 'TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb',
  associatedToken: 'ATokenGPvbdGVxr1b2hvZbsiqW5xWH25efTNsLJA8knL',
  system: '11111111111111111111111111111111',
  memo: 'MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr',
  memoV1: 'Memo1UhkJRfHyvLMcVucJwxXeuD728EqVDDwQDxFMNo',
} as const;

/** Perps on-chain accounts (api-facts section 4). */
export const PERPS_ACCOUNTS = {
  pool: '5BUwFW4nRbftYTDMbgxykoFWqWHPzahFSNAaaaJtVKsq',
  eventAuthority: '37hJBDnntwqhGbK7L6M1bLyvccj4u55CCUiLPdYkiqBN',
  custody: {
    SOL: '7xS2gz2bTp3fwCC7knJvUWTEU9Tycczu6VhJYKgi1wdz',
    ETH: 'AQCGyheWPLeo6Qp9WpYS9m3Qj479t7R636N9ey1rEjEn',
    BTC: '5Pv3gM9JrFFH883SWAhvJC9RPYmo8UNxuFtv5bMMALkm',
    USDC: 'G18jKKXQwBbrHeiK3C9MRXhkHsLHf7XgCSisykV46EZa',
    USDT: '4vkNeXiYEUizLdrpdPS1eC2mccyM4NUPRtERrk6ZETkk',
  },
} as const;

/** Programs every transaction of the service may carry besides the product's own. */
const COMMON = [PROGRAMS.computeBudget, PROGRAMS.token, PROGRAMS.token2022, PROGRAMS.associatedToken, PROGRAMS.system, PROGRAMS.memo, PROGRAMS.memoV1];

/** The allow-list per product (api-facts section 4, "Which programs a transaction invokes"). */
export const ALLOWED_PROGRAMS: Readonly<Record<Product, readonly string[]>> = {
  perps: [PROGRAMS.perps, ...COMMON],
  trigger: [PROGRAMS.trigger, PROGRAMS.referral, ...COMMON],
  recurring: [PROGRAMS.recurring, ...COMMON],
  ultra: [PROGRAMS.aggregator, ...COMMON],
  studio: [PROGRAMS.dbc, ...COMMON],
  tokens: [],
};
