import { USD_DECIMALS } from '../../api/amounts.ts';
import { MINT_DECIMALS, MINTS } from '../../api/mints.ts';

/**
 * Bad input to `stratd act`: one line naming the argument and what it allows. Nothing is built
 * for it (exit 2).
 */
export class ActInputError extends Error {
  override readonly name = 'ActInputError';
  readonly kind = 'bad_input' as const;
  constructor(
    readonly argument: string,
    readonly problem: string,
  ) {
    super(`${argument}: ${problem}`);
  }
}

/** The tokens `stratd act` trades, by symbol: the mints whose decimals stratd knows. */
const TRADABLE: Readonly<Record<string, string>> = { SOL: MINTS.SOL, ETH: MINTS.ETH, BTC: MINTS.BTC, USDC: MINTS.USDC, USDT: MINTS.USDT, JLP: MINTS.JLP };
const TRADABLE_LIST = Object.keys(TRADABLE).join(', ');

/** A token named by its symbol (any case) or its mint address; refused when stratd cannot trade it. */
export function tradableMint(argument: string, text: string): { readonly symbol: string; readonly mint: string; readonly decimals: number } {
  const bySymbol = TRADABLE[text.toUpperCase()];
  const mint = bySymbol ?? Object.values(TRADABLE).find((m) => m === text);
  if (!mint) throw new ActInputError(argument, `${JSON.stringify(text)} is not a tradable token; allowed: ${TRADABLE_LIST}`);
  const symbol = Object.entries(TRADABLE).find(([, m]) => m === mint)![0];
  return { symbol, mint, decimals: MINT_DECIMALS[mint]! };
}

/**
 * Decimal text ("1.5") as an integer of `decimals` decimals, exactly. More decimals than the
 * token has is refused, never rounded: the operator must see what is signed.
 */
export function scaledAmount(argument: string, text: string, decimals: number, unit: string): bigint {
  const match = /^(\d+)(?:\.(\d+))?$/.exec(text);
  if (!match) throw new ActInputError(argument, `${JSON.stringify(text)} is not an amount; allowed: a decimal number such as 1.5 (${unit})`);
  const fraction = match[2] ?? '';
  if (fraction.length > decimals) throw new ActInputError(argument, `${text} has ${fraction.length} decimals; ${unit} allows at most ${decimals}`);
  return BigInt(`${match[1]}${fraction.padEnd(decimals, '0')}`);
}

/** "100USDC", "100 USDC" or "1.5SOL": an amount and its token. */
export function tokenAmount(argument: string, text: string): { readonly mint: string; readonly symbol: string; readonly amount: bigint; readonly decimals: number } {
  const match = /^(\d+(?:\.\d+)?)\s*([A-Za-z][A-Za-z0-9]*)$/.exec(text.trim());
  if (!match) throw new ActInputError(argument, `${JSON.stringify(text)} is not an amount with its token; allowed: e.g. 100USDC or 1.5SOL (${TRADABLE_LIST})`);
  const token = tradableMint(argument, match[2]!);
  return { ...token, amount: scaledAmount(argument, match[1]!, token.decimals, token.symbol) };
}

/** USD as "100", "100USD" or "$100": USD × 10^6. */
export function usdAmount(argument: string, text: string): bigint {
  const bare = text.trim().replace(/^\$/, '').replace(/\s*USD$/i, '');
  return scaledAmount(argument, bare, USD_DECIMALS, 'USD');
}

/**
 * A trigger price: USD ("140", "140.25") or a percentage of the mark ("5%"), away from the mark
 * in the direction `direction` (-1 below, +1 above). USD × 10^6.
 */
export function triggerPrice(argument: string, text: string, markUsd: bigint | undefined, direction: -1 | 1): bigint {
  const pct = /^(\d+(?:\.\d+)?)%$/.exec(text.trim());
  if (!pct) {
    const price = usdAmount(argument, text);
    if (price === 0n) throw new ActInputError(argument, 'a trigger price must be above 0; allowed: a USD price such as 140.5, or a percentage of the mark such as 5%');
    return price;
  }
  if (markUsd === undefined || markUsd <= 0n) throw new ActInputError(argument, `${text} is relative to the mark, and no mark price of the market is known (no fresh positions snapshot lists it); give a USD price`);
  // Percent with up to 4 decimals, as parts per million: exact.
  const ppm = scaledAmount(argument, pct[1]!, 4, 'a percentage');
  if (ppm <= 0n || ppm >= 1_000_000n) throw new ActInputError(argument, `${text} is out of range; allowed: above 0% and below 100%`);
  return (markUsd * (1_000_000n + BigInt(direction) * ppm)) / 1_000_000n;
}
