/** Basis points in a whole: a slippage of this many keeps nothing. */
const BPS = 10_000n;

/**
 * The least of `amount` a trade settles for when it may slip `slippageBps` below it, rounded up:
 * the floor the signing policy holds a swap's route to (the quote's out less maxSlippageBps) and
 * the one the risk gate values a swap or a trigger order at. Undefined at 10,000 bps or more: such
 * a slippage accepts nothing at all, which is no floor (callers refuse rather than read it as 0).
 */
export function slippageFloor(amount: bigint, slippageBps: bigint): bigint | undefined {
  if (slippageBps >= BPS) return undefined;
  const kept = slippageBps < 0n ? BPS : BPS - slippageBps;
  return (amount * kept + BPS - 1n) / BPS;
}
