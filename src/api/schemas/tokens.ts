import { z } from 'zod';
import { queryInt } from './query.ts';

export const tokenCategory = z.enum(['toporganicscore', 'toptraded', 'toptrending']);
export type TokenCategory = z.infer<typeof tokenCategory>;
export const tokenInterval = z.enum(['5m', '1h', '6h', '24h']);
export type TokenInterval = z.infer<typeof tokenInterval>;

const num = z.number().nullish();
const text = z.string().nullish();

/** Stats bucket (spec 2.1): every member a number; the docs omit some per token. */
export const statsBucket = z.looseObject({
  priceChange: num,
  holderChange: num,
  liquidityChange: num,
  volumeChange: num,
  buyVolume: num,
  sellVolume: num,
  buyOrganicVolume: num,
  sellOrganicVolume: num,
  numBuys: num,
  numSells: num,
  numTraders: num,
  numOrganicBuyers: num,
  numNetBuyers: num,
});

export const tokenAudit = z.looseObject({
  isSus: z.boolean().nullish(),
  mintAuthorityDisabled: z.boolean().nullish(),
  freezeAuthorityDisabled: z.boolean().nullish(),
  topHoldersPercentage: num,
  devBalancePercentage: num,
  devMigrations: num,
});

/**
 * Token (spec 2.1). The spec marks no member required and the documented samples omit
 * many; identity (id, name, symbol, decimals) is required because nothing works without it.
 */
export const token = z.looseObject({
  id: z.string(),
  name: z.string(),
  symbol: z.string(),
  decimals: z.number().int(),
  icon: text,
  twitter: text,
  telegram: text,
  website: text,
  dev: text,
  circSupply: num,
  totalSupply: num,
  tokenProgram: z.string().optional(),
  launchpad: text,
  partnerConfig: text,
  graduatedPool: text,
  graduatedAt: text,
  holderCount: num,
  fdv: num,
  mcap: num,
  usdPrice: num,
  priceBlockId: num,
  liquidity: num,
  stats5m: statsBucket.nullish(),
  stats1h: statsBucket.nullish(),
  stats6h: statsBucket.nullish(),
  stats24h: statsBucket.nullish(),
  firstPool: z.looseObject({ id: z.string(), createdAt: z.string() }).nullish(),
  audit: tokenAudit.nullish(),
  organicScore: z.number().optional(),
  organicScoreLabel: z.enum(['high', 'medium', 'low']).optional(),
  isVerified: z.boolean().nullish(),
  cexes: z.array(z.string()).nullish(),
  tags: z.array(z.string()).nullish(),
  updatedAt: z.string().optional(),
});
export type Token = z.infer<typeof token>;

export const rankedTokensRequest = z.strictObject({
  category: tokenCategory,
  interval: tokenInterval,
  /** 1 to 100; the service's default is 50. */
  limit: queryInt(1, 100).optional(),
});
export const rankedTokensResponse = z.array(token);

/**
 * GET /tokens/v2/search (api-facts 2.1): tokens by symbol, name or mint; `query` takes up to 100
 * mints separated by commas. Its items are the ranked lists' (the same schema).
 */
export const searchTokensRequest = z.strictObject({
  query: z.string().min(1).max(4_500),
});
export const searchTokensResponse = rankedTokensResponse;

/** Timestamps are documented as date-time text but observed as unix seconds in either type. */
const looseTimestamp = z.union([z.string(), z.number()]);

/** New token (spec 2.2). */
export const newToken = z.looseObject({
  created_at: looseTimestamp,
  decimals: z.number().int(),
  known_markets: z.array(z.string()),
  metadata_updated_at: looseTimestamp,
  mint: z.string(),
  name: z.string(),
  symbol: z.string(),
  freeze_authority: z.string().nullish(),
  logo_uri: z.string().nullish(),
  mint_authority: z.string().nullish(),
});
export type NewToken = z.infer<typeof newToken>;

export const newTokensRequest = z.strictObject({
  limit: queryInt(1).nullish(),
  offset: queryInt(0).nullish(),
});
export const newTokensResponse = z.array(newToken);
