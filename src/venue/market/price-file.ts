import { readFileSync } from 'node:fs';
import { decimalToScaled } from '../../api/amounts.ts';
import type { MarketSymbol } from './assets.ts';
import { MarketError } from './errors.ts';

/** One row of a replayed price file: prices (USD x 10^6) effective from `offsetMs` after the start. */
export interface PriceRow {
  readonly offsetMs: number;
  readonly prices: Readonly<Partial<Record<MarketSymbol, bigint>>>;
}

const SYMBOLS: readonly MarketSymbol[] = ['SOL', 'ETH', 'BTC'];

/**
 * Parses a replay file: CSV with a header naming `offsetMs` and any of SOL, ETH, BTC, one row
 * per price change, offsets ascending; prices are plain USD decimals ("151.25"). An empty cell
 * keeps that market's previous price. Lines starting with # are comments.
 *
 * @example
 * offsetMs,SOL,ETH,BTC
 * 0,150,3000,60000
 * 60000,151.5,,60120.25
 */
export function parsePriceCsv(text: string, source = 'price file'): PriceRow[] {
  const lines = text.split(/\r?\n/).map((l) => l.trim()).filter((l) => l !== '' && !l.startsWith('#'));
  const header = lines.shift()?.split(',').map((h) => h.trim());
  if (!header || header[0] !== 'offsetMs') {
    throw new MarketError('invalid_argument', 'invalid_price_file', `${source}: the first line must be a header starting with offsetMs`);
  }
  const columns = header.slice(1).map((name) => {
    if (!SYMBOLS.includes(name as MarketSymbol)) {
      throw new MarketError('invalid_argument', 'invalid_price_file', `${source}: unknown column ${JSON.stringify(name)} (SOL, ETH, BTC)`);
    }
    return name as MarketSymbol;
  });
  const rows: PriceRow[] = [];
  let previous = -1;
  lines.forEach((line, index) => {
    const cells = line.split(',').map((c) => c.trim());
    const where = `${source} row ${String(index + 2)}`;
    const offsetText = cells[0] ?? '';
    if (!/^\d+$/.test(offsetText)) throw new MarketError('invalid_argument', 'invalid_price_file', `${where}: offsetMs must be a non-negative integer`);
    const offsetMs = Number(offsetText);
    if (offsetMs <= previous) throw new MarketError('invalid_argument', 'invalid_price_file', `${where}: offsets must be strictly ascending`);
    previous = offsetMs;
    const prices: Partial<Record<MarketSymbol, bigint>> = {};
    columns.forEach((symbol, i) => {
      const cell = cells[i + 1] ?? '';
      if (cell === '') return;
      let price: bigint;
      try {
        price = decimalToScaled(cell, 6);
      } catch {
        throw new MarketError('invalid_argument', 'invalid_price_file', `${where}: ${symbol} price ${JSON.stringify(cell)} is not a decimal`);
      }
      if (price <= 0n) throw new MarketError('invalid_argument', 'invalid_price_file', `${where}: ${symbol} price must be positive`);
      prices[symbol] = price;
    });
    rows.push({ offsetMs, prices });
  });
  if (rows.length === 0) throw new MarketError('invalid_argument', 'invalid_price_file', `${source}: no price rows`);
  return rows;
}

export function loadPriceFile(path: string): PriceRow[] {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (cause) {
    throw new MarketError('invalid_argument', 'invalid_price_file', `cannot read price file ${path}: ${(cause as Error).message}`);
  }
  return parsePriceCsv(text, path);
}
