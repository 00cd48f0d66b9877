import { randomUUID } from 'node:crypto';
import { decimalToScaled } from '../../api/amounts.ts';
import { formatUsd } from '../../kernel/money-text.ts';
import { MARKET_SYMBOL, MINTS, type MarketMint } from '../../api/mints.ts';
import { intentSchema, MAX_LEVERAGE, type Intent } from '../../sdk/intent.ts';
import type { PositionView } from '../../sdk/position-view.ts';
import { formatLeverage, tokenValueUsd, type ExposureFacts } from '../../risk/exposure-limits.ts';
import { ActInputError, scaledAmount, tokenAmount, tradableMint, triggerPrice, usdAmount } from './human-units.ts';

/** What an act's arguments are read against: the wallet's positions, the latest prices and the leverage limits in force. */
export interface ActFacts extends ExposureFacts {
  /** config risk.maxLeverage, by market symbol. */
  readonly maxLeverage: Readonly<Record<'SOL' | 'ETH' | 'BTC', number>>;
}

/** One act's arguments: the sub-command's positionals and its options (strings; flags as true). */
interface ActArguments {
  readonly command: string;
  readonly positionals: readonly string[];
  readonly options: Readonly<Record<string, string | boolean | undefined>>;
  /** The ledger's reason (--reason, or the command line). */
  readonly reason: string;
}

/** The sub-commands of `stratd act` and the intent each makes. */
export const ACT_COMMANDS = ['open', 'increase', 'add-collateral', 'close', 'decrease', 'tpsl', 'trigger', 'cancel-orders', 'swap', 'lp-mint', 'deposit-borrow', 'recurring', 'claim-fees'] as const;

const MARKETS: Readonly<Record<string, MarketMint>> = { SOL: MINTS.SOL, ETH: MINTS.ETH, BTC: MINTS.BTC };
const U64_MAX = '18446744073709551615';

/**
 * Reads an act's arguments into one intent, exactly (decimal text → integers of the token's
 * decimals, % relative to the mark), or throws ActInputError naming the argument and what it
 * allows. Nothing is sent: the intent is validated by the same schema a strategy's is.
 */
export function actIntent(args: ActArguments, facts: ActFacts): Intent {
  const key = `act:${args.command}:${randomUUID()}`;
  const base = { key, reason: args.reason.slice(0, 500) };
  const intent = build(args, facts);
  const parsed = intentSchema.safeParse({ ...intent, ...base });
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new ActInputError(String(issue.path[0] ?? args.command), issue.message);
  }
  return parsed.data;
}

function build(args: ActArguments, facts: ActFacts): Record<string, unknown> {
  const { positionals: p, options: o } = args;
  const str = (name: string): string | undefined => (typeof o[name] === 'string' ? (o[name] as string) : undefined);
  const need = (i: number, name: string, allowed: string): string => {
    const v = p[i];
    if (v === undefined) throw new ActInputError(name, `missing; allowed: ${allowed}`);
    return v;
  };
  const slippage = str('slippage-bps');
  const slippageBps = slippage === undefined ? {} : { maxSlippageBps: String(scaledAmount('--slippage-bps', slippage, 0, 'basis points')) };
  switch (args.command) {
    case 'open': {
      const market = marketOf(need(0, '<market>', 'SOL, ETH, BTC'));
      const side = sideOf(need(1, '<side>', 'long, short'));
      // The venue would add to the held position instead of opening one (the risk gate refuses it too, as position_held).
      const held = facts.positions.find((p) => p.sizeUsd > 0n && p.marketMint === market && p.side === side);
      if (held) throw new ActInputError('open', `the wallet already holds a ${MARKET_SYMBOL[market]} ${side} position (${held.positionPubkey}); to add to it: stratd act increase ${held.positionPubkey} --collateral … (--leverage … | --size …)`);
      const perps = perpsAmounts(args, facts, market, side);
      const sl = str('sl');
      if (sl === undefined) throw new ActInputError('--sl', 'required: no position is opened without a stop; allowed: a USD price such as 140, or a percentage of the mark such as 5%');
      return { type: 'open', ...perps, ...slippageBps, stopLossPrice: stopPrice('--sl', sl, facts, market, side, 'sl') };
    }
    case 'increase': {
      const position = positionOf(need(0, '<position>', 'a position of the wallet'), facts);
      const perps = perpsAmounts(args, facts, position.marketMint, position.side);
      const sl = str('sl');
      return { type: 'increase', positionPubkey: position.positionPubkey, ...perps, ...slippageBps, ...(sl === undefined ? {} : { stopLossPrice: stopPrice('--sl', sl, facts, position.marketMint, position.side, 'sl') }) };
    }
    case 'add-collateral': {
      const position = positionOf(need(0, '<position>', 'a position of the wallet'), facts);
      const collateral = collateralOf(args, position.marketMint, position.side);
      return { type: 'add-collateral', positionPubkey: position.positionPubkey, marketMint: position.marketMint, side: position.side, collateralMint: collateral.mint, collateralTokenDelta: collateral.amount.toString(), notionalUsd: '0', ...slippageBps };
    }
    case 'close':
    case 'decrease': {
      const position = positionOf(need(0, '<position>', 'a position of the wallet'), facts);
      const receive = (str('receive') ?? 'USDC').toUpperCase();
      if (!['USDC', 'SOL', 'ETH', 'BTC'].includes(receive)) throw new ActInputError('--receive', `${JSON.stringify(receive)}; allowed: USDC, SOL, ETH, BTC`);
      const common = { type: 'decrease', positionPubkey: position.positionPubkey, marketMint: position.marketMint, side: position.side, receiveToken: receive, ...slippageBps };
      if (args.command === 'close') return { ...common, entirePosition: true, notionalUsd: position.sizeUsd.toString() };
      const size = str('size');
      if (size === undefined) throw new ActInputError('--size', `required; allowed: USD up to the position's ${position.sizeUsd / 1_000_000n} (e.g. 100USD)`);
      const delta = usdAmount('--size', size);
      if (delta === 0n || delta > position.sizeUsd) throw new ActInputError('--size', `${size} is out of range; allowed: above 0 and at most the position's size (${formatUsd(position.sizeUsd)}); use "close" for all of it`);
      return { ...common, sizeUsdDelta: delta.toString(), notionalUsd: delta.toString() };
    }
    case 'tpsl': {
      const position = positionOf(need(0, '<position>', 'a position of the wallet'), facts);
      const [sl, tp] = [str('sl'), str('tp')];
      if ((sl === undefined) === (tp === undefined)) throw new ActInputError('--sl/--tp', 'give exactly one; allowed: a USD price such as 140, or a percentage of the mark such as 5%');
      const requestType = sl !== undefined ? 'sl' : 'tp';
      const price = stopPrice(requestType === 'sl' ? '--sl' : '--tp', (sl ?? tp)!, facts, position.marketMint, position.side, requestType);
      return { type: 'tpsl-create', positionPubkey: position.positionPubkey, marketMint: position.marketMint, side: position.side, requestType, triggerPrice: price.toString(), receiveToken: 'USDC', entirePosition: true, notionalUsd: position.sizeUsd.toString() };
    }
    case 'trigger': {
      const sub = need(0, '<create|cancel>', 'create, cancel');
      if (sub === 'cancel') return { type: 'trigger-cancel', order: need(1, '<order>', 'an open trigger order of the wallet'), notionalUsd: '0' };
      if (sub !== 'create') throw new ActInputError('trigger', `${JSON.stringify(sub)}; allowed: create, cancel`);
      const sell = pair(need(1, '<amount>', 'a decimal amount'), need(2, '<token>', 'a tradable token'), '<amount>');
      const buy = pair(need(3, '<for-amount>', 'a decimal amount'), need(4, '<for-token>', 'a tradable token'), '<for-amount>');
      const expires = str('expires-in');
      return {
        type: 'trigger-create', inputMint: sell.mint, outputMint: buy.mint, makingAmount: sell.amount.toString(), takingAmount: buy.amount.toString(),
        notionalUsd: valueOr0(facts, sell.mint, sell.amount),
        ...(expires === undefined ? {} : { expiredAt: String(Math.floor(Date.now() / 1000) + secondsOf('--expires-in', expires)) }),
      };
    }
    case 'cancel-orders':
      return { type: 'trigger-cancel-all', notionalUsd: '0', ...(p.length > 0 ? { orders: [...p] } : {}) };
    case 'swap': {
      const sell = pair(need(0, '<amount>', 'a decimal amount'), need(1, '<from-token>', 'a tradable token'), '<amount>');
      const out = tradableMint('<to-token>', need(2, '<to-token>', 'a tradable token'));
      // The operator's own floor: a swap into a token no snapshot prices is refused without one.
      const minOut = str('min-out');
      const floor = minOut === undefined ? {} : { minOutAmount: String(scaledAmount('--min-out', minOut, out.decimals, out.symbol)) };
      return { type: 'swap', inputMint: sell.mint, outputMint: out.mint, amount: sell.amount.toString(), notionalUsd: valueOr0(facts, sell.mint, sell.amount), ...slippageBps, ...floor };
    }
    case 'lp-mint': {
      const deposit = pair(need(0, '<amount>', 'a decimal amount'), need(1, '<token>', 'SOL, ETH, BTC, USDC'), '<amount>');
      const token = { [MINTS.SOL]: 'SOL', [MINTS.ETH]: 'ETH', [MINTS.BTC]: 'WBTC', [MINTS.USDC]: 'USDC' }[deposit.mint];
      if (!token) throw new ActInputError('<token>', `${deposit.symbol} is not a pool asset; allowed: SOL, ETH, BTC, USDC`);
      const minLp = str('min-lp');
      return { type: 'lp-mint', depositToken: token, depositTokenAmount: deposit.amount.toString(), notionalUsd: valueOr0(facts, deposit.mint, deposit.amount), ...(minLp === undefined ? {} : { minLpAmount: String(scaledAmount('--min-lp', minLp, 6, 'JLP')) }) };
    }
    case 'deposit-borrow': {
      const lp = scaledAmount('<lp-amount>', need(0, '<lp-amount>', 'a decimal amount of JLP'), 6, 'JLP');
      const borrow = str('borrow');
      const usdc = borrow === undefined ? 0n : scaledAmount('--borrow', borrow.replace(/\s*USDC$/i, ''), 6, 'USDC');
      return { type: 'deposit-borrow', depositTokenAmount: lp.toString(), borrowTokenAmount: usdc.toString(), notionalUsd: usdc.toString() };
    }
    case 'recurring': {
      const sub = need(0, '<create|cancel>', 'create, cancel');
      if (sub === 'cancel') return { type: 'recurring-cancel', order: need(1, '<order>', 'an open recurring order of the wallet'), notionalUsd: '0' };
      if (sub !== 'create') throw new ActInputError('recurring', `${JSON.stringify(sub)}; allowed: create, cancel`);
      const sell = pair(need(1, '<amount>', 'a decimal amount'), need(2, '<from-token>', 'a tradable token'), '<amount>');
      const out = tradableMint('<to-token>', need(3, '<to-token>', 'a tradable token'));
      const orders = str('orders');
      const every = str('every');
      if (orders === undefined || !/^\d+$/.test(orders)) throw new ActInputError('--orders', 'required; allowed: a whole number from 2 to 10000');
      if (every === undefined) throw new ActInputError('--every', 'required; allowed: an interval such as 3600, 90m, 1h or 1d (at least 60 s)');
      return { type: 'recurring-create', inputMint: sell.mint, outputMint: out.mint, inAmount: sell.amount.toString(), numberOfOrders: Number(orders), intervalSec: secondsOf('--every', every), notionalUsd: valueOr0(facts, sell.mint, sell.amount) };
    }
    case 'claim-fees': {
      const pool = need(0, '<pool>', 'a Dynamic Bonding Curve pool address');
      const max = str('max');
      return { type: 'studio-claim-fee', poolAddress: pool, maxQuoteAmount: max === undefined ? U64_MAX : String(scaledAmount('--max', max, 6, 'the quote token (6 decimals)')), notionalUsd: '0' };
    }
    default:
      throw new ActInputError('<command>', `${JSON.stringify(args.command)} is unknown; allowed: ${ACT_COMMANDS.join(', ')}`);
  }
}

function marketOf(text: string): MarketMint {
  const market = MARKETS[text.toUpperCase()];
  if (!market) throw new ActInputError('<market>', `${JSON.stringify(text)} is not a perps market; allowed: SOL, ETH, BTC`);
  return market;
}

function sideOf(text: string): 'long' | 'short' {
  if (text !== 'long' && text !== 'short') throw new ActInputError('<side>', `${JSON.stringify(text)}; allowed: long, short`);
  return text;
}

function positionOf(text: string, facts: ActFacts): PositionView {
  const position = facts.positions.find((p) => p.positionPubkey === text && p.sizeUsd > 0n);
  if (!position) {
    const open = facts.positions.filter((p) => p.sizeUsd > 0n).map((p) => `${p.positionPubkey} (${MARKET_SYMBOL[p.marketMint]} ${p.side})`);
    throw new ActInputError('<position>', `${text} is not an open position of the wallet; allowed: ${open.length > 0 ? open.join(', ') : 'none (the latest positions snapshot lists no open position)'}`);
  }
  return position;
}

function pair(amountText: string, tokenText: string, argument: string): { readonly mint: string; readonly symbol: string; readonly amount: bigint } {
  const token = tradableMint(argument.replace('amount', 'token'), tokenText);
  const amount = scaledAmount(argument, amountText, token.decimals, token.symbol);
  if (amount === 0n) throw new ActInputError(argument, 'must be above 0');
  return { ...token, amount };
}

function collateralOf(args: ActArguments, market: MarketMint, side: 'long' | 'short'): { readonly mint: string; readonly amount: bigint } {
  const text = args.options.collateral;
  const allowed = side === 'long' ? MARKET_SYMBOL[market] : 'USDC, USDT';
  if (typeof text !== 'string') throw new ActInputError('--collateral', `required; allowed: an amount of ${allowed}, e.g. ${side === 'long' ? `1.5${MARKET_SYMBOL[market]}` : '100USDC'}`);
  const collateral = tokenAmount('--collateral', text);
  const fits = side === 'long' ? collateral.mint === market : collateral.mint === MINTS.USDC || collateral.mint === MINTS.USDT;
  if (!fits) throw new ActInputError('--collateral', `a ${side} on ${MARKET_SYMBOL[market]} takes ${allowed} as collateral, not ${collateral.symbol}`);
  if (collateral.amount === 0n) throw new ActInputError('--collateral', 'must be above 0');
  return collateral;
}

/** Collateral, leverage or size, and the notional of an open or increase; leverage is held to risk.maxLeverage here already. */
function perpsAmounts(args: ActArguments, facts: ActFacts, market: MarketMint, side: 'long' | 'short'): Record<string, unknown> {
  const collateral = collateralOf(args, market, side);
  const { leverage, size } = args.options;
  const symbol = MARKET_SYMBOL[market];
  const limit = Math.min(facts.maxLeverage[symbol], MAX_LEVERAGE[market] ?? Number.POSITIVE_INFINITY);
  if ((typeof leverage === 'string') === (typeof size === 'string')) throw new ActInputError('--leverage/--size', `give exactly one; allowed: --leverage from 1.1 to ${limit} on ${symbol}, or --size in USD (e.g. 500USD)`);
  let fields: Record<string, string>;
  let sizeUsd: bigint | undefined;
  if (typeof leverage === 'string') {
    if (!/^\d+(\.\d{1,2})?$/.test(leverage)) throw new ActInputError('--leverage', `${JSON.stringify(leverage)}; allowed: a number from 1.1 to ${limit} with at most 2 decimals`);
    const scaled = decimalToScaled(leverage, 6);
    const max = decimalToScaled(String(limit), 6);
    if (scaled < 1_100_000n || scaled > max) throw new ActInputError('--leverage', `${leverage} is outside the allowed 1.1 to ${formatLeverage(max)} on ${symbol} (risk.maxLeverage.${symbol})`);
    fields = { leverage };
    const value = tokenValueUsd(facts, collateral.mint, collateral.amount);
    sizeUsd = value === undefined ? undefined : (value * scaled) / 1_000_000n;
  } else {
    sizeUsd = usdAmount('--size', size as string);
    if (sizeUsd === 0n) throw new ActInputError('--size', 'must be above 0');
    fields = { sizeUsdDelta: sizeUsd.toString() };
  }
  const tp = args.options.tp;
  return {
    marketMint: market,
    side,
    collateralMint: collateral.mint,
    collateralTokenDelta: collateral.amount.toString(),
    ...fields,
    notionalUsd: (sizeUsd ?? 0n).toString(),
    ...(typeof tp === 'string' ? { takeProfitPrice: stopPrice('--tp', tp, facts, market, side, 'tp').toString() } : {}),
  };
}

/** A stop-loss below a long's mark (above a short's), a take-profit the other way. */
function stopPrice(argument: string, text: string, facts: ActFacts, market: MarketMint, side: 'long' | 'short', kind: 'sl' | 'tp'): string {
  const below = (side === 'long') === (kind === 'sl');
  return triggerPrice(argument, text, facts.priceUsd(market), below ? -1 : 1).toString();
}

function valueOr0(facts: ActFacts, mint: string, amount: bigint): string {
  return (tokenValueUsd(facts, mint, amount) ?? 0n).toString();
}

/** "3600", "90m", "1h", "1d" as seconds. */
function secondsOf(argument: string, text: string): number {
  const match = /^(\d+)([smhd]?)$/.exec(text.trim());
  if (!match) throw new ActInputError(argument, `${JSON.stringify(text)}; allowed: seconds or a number with s, m, h or d (e.g. 1h)`);
  const unit = { '': 1, s: 1, m: 60, h: 3_600, d: 86_400 }[match[2] as '' | 's' | 'm' | 'h' | 'd'];
  return Number(match[1]) * unit;
}
