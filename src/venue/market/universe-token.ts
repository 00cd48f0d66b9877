/** One token of the simulated token universe (token-universe.ts), as its JSON views read it (token-json.ts). */
export interface UniverseToken {
  readonly id: string;
  readonly name: string;
  readonly symbol: string;
  readonly decimals: number;
  readonly createdMs: number;
  readonly generic: boolean;
  readonly launchpad: string | null;
  readonly dev: string;
  readonly pool: string;
  readonly totalSupply: number;
  price: number;
  holders: number;
  liquidity: number;
  activity: number;
  trend: number;
  organicShare: number;
  organicScore: number;
  /** Ring of the last 288 buckets, FIELDS numbers each. */
  readonly history: Float64Array;
  /** Total volume of the last 576 buckets (for the 24h volume change). */
  readonly volumes: Float64Array;
  filled: number;
  head: number;
  updatedMs: number;
}

/** Sums and changes of the last buckets of a token (spec 2.1 stats bucket); statsOf in token-universe.ts. */
export interface StatsBucket {
  readonly priceChange: number;
  readonly holderChange: number;
  readonly liquidityChange: number;
  readonly volumeChange: number;
  readonly buyVolume: number;
  readonly sellVolume: number;
  readonly buyOrganicVolume: number;
  readonly sellOrganicVolume: number;
  readonly numBuys: number;
  readonly numSells: number;
  readonly numTraders: number;
  readonly numOrganicBuyers: number;
  readonly numNetBuyers: number;
}
