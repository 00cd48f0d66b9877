import { PROGRAMS } from '../../chain/programs.ts';
import { derivedAddress } from './keys.ts';
import type { StatsBucket, UniverseToken } from './universe-token.ts';

type StatsFn = (t: UniverseToken, buckets: number) => StatsBucket;

/** Renders a universe token as the ranked-list item (spec 2.1). */
export function tokenJson(t: UniverseToken, stats: StatsFn) {
  const circSupply = Math.round(t.totalSupply * 0.92);
  const label: 'high' | 'medium' | 'low' = t.organicScore >= 70 ? 'high' : t.organicScore >= 35 ? 'medium' : 'low';
  const hash = t.id.charCodeAt(3) + t.id.charCodeAt(7);
  return {
    id: t.id,
    name: t.name,
    symbol: t.symbol,
    icon: `https://venue.invalid/icons/${t.symbol.toLowerCase()}.png`,
    decimals: t.decimals,
    twitter: hash % 3 === 0 ? null : `https://x.com/${t.symbol.toLowerCase()}`,
    telegram: hash % 4 === 0 ? `https://t.me/${t.symbol.toLowerCase()}` : null,
    website: hash % 2 === 0 ? `https://${t.symbol.toLowerCase()}.invalid` : null,
    dev: t.dev,
    circSupply,
    totalSupply: t.totalSupply,
    tokenProgram: PROGRAMS.token,
    launchpad: t.launchpad,
    partnerConfig: t.launchpad === 'met-dbc' ? derivedAddress('venue-partner-config', t.launchpad) : null,
    graduatedPool: t.launchpad ? t.pool : null,
    graduatedAt: t.launchpad ? new Date(t.createdMs + 3_600_000).toISOString() : null,
    holderCount: t.holders,
    fdv: round2(t.price * t.totalSupply),
    mcap: round2(t.price * circSupply),
    usdPrice: t.price,
    priceBlockId: Math.floor(t.updatedMs / 400),
    liquidity: round2(t.liquidity),
    stats5m: stats(t, 1),
    stats1h: stats(t, 12),
    stats6h: stats(t, 72),
    stats24h: stats(t, 288),
    firstPool: { id: t.pool, createdAt: new Date(t.createdMs).toISOString() },
    audit: {
      isSus: t.organicScore < 10 ? true : undefined,
      mintAuthorityDisabled: true,
      freezeAuthorityDisabled: true,
      topHoldersPercentage: 10 + (hash % 50),
      devBalancePercentage: hash % 7,
      devMigrations: hash % 3,
    },
    organicScore: Math.round(t.organicScore * 100) / 100,
    organicScoreLabel: label,
    isVerified: t.organicScore >= 80 ? true : null,
    cexes: null,
    tags: t.organicScore >= 70 ? ['verified', 'community'] : ['unknown'],
    updatedAt: new Date(t.updatedMs).toISOString(),
  };
}

export type TokenJson = ReturnType<typeof tokenJson>;

/** The new-token item (spec 2.2), timestamps as the observed live service sends them. */
export function newTokenJson(t: UniverseToken) {
  return {
    mint: t.id,
    name: t.name,
    symbol: t.symbol,
    decimals: t.decimals,
    logo_uri: `https://venue.invalid/icons/${t.symbol.toLowerCase()}.png`,
    known_markets: [t.pool],
    mint_authority: null,
    freeze_authority: null,
    created_at: String(Math.floor(t.createdMs / 1000)),
    metadata_updated_at: Math.floor(t.updatedMs / 1000),
  };
}

export type NewTokenJson = ReturnType<typeof newTokenJson>;

function round2(value: number): number {
  return Math.round(value * 100) / 100;
}
