import { MINTS } from '../../api/mints.ts';
import { PROGRAMS } from '../../chain/programs.ts';
import { MarketError } from './errors.ts';
import { derivedAddress } from './keys.ts';
import type { BalanceLedger } from './ledger.ts';

/** A Dynamic Bonding Curve pool of a token launch, with the creator's unclaimed trading fees. */
interface DbcPool {
  readonly poolAddress: string;
  readonly owner: string;
  readonly quoteMint: string;
  unclaimed: bigint;
  claimed: bigint;
}

export interface ClaimFeeAction {
  readonly kind: 'studio.claimFee';
  readonly owner: string;
  readonly poolAddress: string;
  readonly amount: bigint;
}

/** Studio fee claims: pools are created through the control API; fees accrue over time. */
export class StudioPools {
  readonly pools = new Map<string, DbcPool>();
  private counter = 0;

  constructor(private readonly ledger: BalanceLedger) {}

  /** Keys handed out so far; a resumed venue (src/venue/venue-state.ts) continues after them, so none is issued twice. */
  get issued(): number {
    return this.counter;
  }

  continueAfter(issued: number): void {
    this.counter = Math.max(this.counter, issued);
  }

  create(owner: string, unclaimed: bigint, quoteMint: string = MINTS.USDC): DbcPool {
    this.counter++;
    const pool: DbcPool = { poolAddress: derivedAddress('dbc-pool', PROGRAMS.dbc, owner, this.counter), owner, quoteMint, unclaimed, claimed: 0n };
    this.pools.set(pool.poolAddress, pool);
    return pool;
  }

  /** Studio answers 404 for an unknown pool and 403 to anyone but its creator (api-facts 2.6). */
  planClaim(owner: string, poolAddress: string, maxQuoteAmount: bigint): ClaimFeeAction {
    const pool = this.pools.get(poolAddress);
    if (!pool) throw new MarketError('not_found', 'not_found', 'Proxy account not found for the creator');
    if (pool.owner !== owner) throw new MarketError('forbidden', 'forbidden', 'You are not the owner of this pool');
    const amount = pool.unclaimed < maxQuoteAmount ? pool.unclaimed : maxQuoteAmount;
    return { kind: 'studio.claimFee', owner, poolAddress, amount };
  }

  land(action: ClaimFeeAction): void {
    const pool = this.pools.get(action.poolAddress);
    if (!pool) throw new MarketError('not_found', 'not_found', 'pool vanished');
    const amount = pool.unclaimed < action.amount ? pool.unclaimed : action.amount;
    pool.unclaimed -= amount;
    pool.claimed += amount;
    if (amount > 0n) this.ledger.credit(pool.owner, pool.quoteMint, amount);
  }

  /** Trading on the curve earns the creator fees: a little per universe step. */
  accrue(): void {
    for (const pool of this.pools.values()) pool.unclaimed += 1_000n;
  }
}
