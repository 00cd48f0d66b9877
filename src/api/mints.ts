import { z } from 'zod';

/** Mints of the live service (api-facts section 4). The venue uses the same ones. */
export const MINTS = {
  SOL: 'So11111111111111111111111111111111111111112',
  ETH: '7vfCXTUXx5WJV5JADk17DUJ4ksgau7utNKj4b963voxs',
  BTC: '3NZ9JMVBmGAqocybic2c7LQCJScmgsAZ6vQqTDzcqmJh',
  USDC: 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v',
  USDT: 'Es9vMFrzaCERmJfrF4H2FYD4KCoNkY11McCe8BenwNYB',
  JLP: '27G8MtK7VtTcCHkpASjSDdkWWYfoqT6ggEuKidVJidD4',
} as const;

export const MINT_DECIMALS: Readonly<Record<string, number>> = {
  [MINTS.SOL]: 9,
  [MINTS.ETH]: 8,
  [MINTS.BTC]: 8,
  [MINTS.USDC]: 6,
  [MINTS.USDT]: 6,
  [MINTS.JLP]: 6,
};

export const marketMint = z.enum([MINTS.SOL, MINTS.ETH, MINTS.BTC]);
export type MarketMint = z.infer<typeof marketMint>;
export const MARKET_MINTS = marketMint.options;

/** The market's asset symbol, as used by receiveToken and position names. */
export const MARKET_SYMBOL: Readonly<Record<MarketMint, 'SOL' | 'ETH' | 'BTC'>> = {
  [MINTS.SOL]: 'SOL',
  [MINTS.ETH]: 'ETH',
  [MINTS.BTC]: 'BTC',
};

export const collateralMint = z.enum([MINTS.SOL, MINTS.ETH, MINTS.BTC, MINTS.USDC, MINTS.USDT]);
export type CollateralMint = z.infer<typeof collateralMint>;

/** The mint a perps decrease pays out in, by the receiveToken the API takes. */
export const RECEIVE_TOKEN_MINT = { SOL: MINTS.SOL, ETH: MINTS.ETH, BTC: MINTS.BTC, USDC: MINTS.USDC } as const;
