import { PublicKey } from '@solana/web3.js';
import type { DecodedInstruction, DecodedTransaction, PerpsInstruction } from '../decode.ts';
import { CUSTODY_MINT, PERPS_MINT_TOKEN_PROGRAM, perpsPositionAddress, isPerpsPositionRequestAddress, type PerpsSide } from '../programs/perps/addresses.ts';
import { MINTS } from '../../api/mints.ts';
import { PROGRAMS } from '../programs.ts';
import type { PerpsIntentBounds, PolicyContext } from './context.ts';
import { CUSTODY_ROLES, FIXED_ROLES, INCREASE_REQUESTS, MINT_ROLES, PAID_IN_ARGUMENT, walletTokenRoles } from './perps-operations.ts';
import { perpsInstructionsOf } from './operation-instructions.ts';
import type { Outflow } from './check-value-flows.ts';
import type { Violation } from './verdict.ts';
import { associatedTokenAccountOf, isAssociatedTokenAccountOf } from './wallet-accounts.ts';

/**
 * Rules product_account and (for argument amounts) intent_exceeded, on the perps instructions the
 * operation may carry (which ones, and that one is there at all, is the instruction gate's:
 * check-operation-instructions.ts), decoded from their IDL layouts:
 * - product_account: `owner` is the wallet; the wallet's token accounts are its associated token
 *   accounts of the right mint under that mint's token program; the position and request PDAs
 *   derive from the wallet; pool, custodies, programs and mints are the deployment's own; no
 *   account beyond the layout's list.
 * - intent_exceeded: sizes, collateral, trigger and slippage prices, and tokens paid into the
 *   program stay within the intent.
 * Pure: derivations only, no chain reads.
 */
export function checkProductInstructions(decoded: DecodedTransaction, ctx: PolicyContext): ProductReport {
  const allowed = perpsInstructionsOf(ctx.operationId);
  const violations: Violation[] = [];
  const payments: Outflow[] = [];
  const bounds = ctx.intent?.perps;
  const acting: PerpsInstruction[] = [];
  const attached: Array<{ ix: DecodedInstruction; parsed: PerpsInstruction }> = [];
  for (const ix of decoded.instructions) {
    // An account that did not resolve is already unresolved_lookup: nothing to judge by role.
    if (ix.programId !== PROGRAMS.perps || ix.accounts.some((a) => a.pubkey === null)) continue;
    // Undecodable data of a known instruction is already `malformed`; an unknown or unlisted one
    // is the instruction gate's.
    const parsed = ix.parsed?.program === 'perps' ? ix.parsed : undefined;
    if (!parsed || !allowed.has(parsed.type)) continue;
    if (bounds?.attachedTpsl !== undefined && ATTACHED_TPSL.has(parsed.type)) {
      attached.push({ ix, parsed });
      continue;
    }
    acting.push(parsed);
    violations.push(...checkInstruction(ix, parsed, ctx, payments));
  }
  if (bounds?.depositBorrow !== undefined) violations.push(...checkLendingSet(acting, bounds.depositBorrow));
  // An intent asks for one request: bounds checked per instruction would let a second one through
  // (none at all is refused by the gate, intent or not).
  else if (bounds !== undefined && acting.length > 1) {
    violations.push({ rule: 'intent_exceeded', detail: `${acting.length} perps instructions of ${ctx.operationId} (${acting.map((p) => p.type).join(', ')}); the intent asks for one` });
  }
  if (bounds?.attachedTpsl !== undefined) violations.push(...checkAttachedTpsl(attached, bounds, ctx, payments));
  if (bounds?.stopShortOfLiquidation !== undefined && acting.length === 1) violations.push(...checkStopShortOfLiquidation(acting[0]!, bounds.stopShortOfLiquidation));
  return { violations, payments };
}

/**
 * What a position loses to costs before liquidation, in bps of its size: the maintenance margin
 * (1/500 of the size: 20), the open's and the close's fees (6 + 6) and price impact at its cap on
 * both (50 + 50). Liquidated once collateral − losses − these ≤ 0, i.e. at a price move of
 * collateral / size − this.
 */
const LIQUIDATION_COST_BPS = 132n;

/**
 * An open's attached stop must fire before the keeper could liquidate the new position: its
 * execution is not first-in-first-out, so a stop at or past the liquidation price loses the race
 * and the whole collateral goes instead of the stop's share. Judged at the worst entry the request
 * accepts (its priceSlippage: the slippage and drift allowed), rounded towards refusing.
 */
function checkStopShortOfLiquidation(increase: PerpsInstruction, guard: NonNullable<PerpsIntentBounds['stopShortOfLiquidation']>): Violation[] {
  const added = bigintArg(increase, 'sizeUsdDelta');
  const worstFill = bigintArg(increase, 'priceSlippage');
  if (added === undefined || added <= 0n || worstFill === undefined || worstFill <= 0n) return [];
  const refuse = (detail: string): Violation[] => [{ rule: 'stop_past_liquidation', detail }];
  const long = guard.side === 'long';
  const held = guard.held !== undefined && guard.held.sizeUsd > 0n && guard.held.entryPriceUsd > 0n ? guard.held : undefined;
  const size = added + (held?.sizeUsd ?? 0n);
  const collateral = guard.collateralUsd + (held?.collateralUsd ?? 0n);
  // The combined entry: sizes over the sum of size / price (a position's entry as the program keeps it),
  // rounded towards the stop (up for a long, down for a short).
  const worst = held === undefined ? worstFill : weightedEntry(held.sizeUsd, held.entryPriceUsd, added, worstFill, long);
  const distanceBps = (collateral * BPS) / size - LIQUIDATION_COST_BPS;
  const what = held === undefined ? `size ${size} on collateral worth ${collateral}` : `size ${size} on collateral worth ${collateral} (the held position's ${held.sizeUsd} on ${held.collateralUsd} with this request's ${added})`;
  if (distanceBps <= 0n) return refuse(`${what} is liquidated at once: its costs (${LIQUIDATION_COST_BPS} bps of size) take the whole collateral`);
  // A long is liquidated below the entry, a short above; rounded towards the stop.
  const liquidation = long ? (worst * (BPS - distanceBps) + BPS - 1n) / BPS : (worst * (BPS + distanceBps)) / BPS;
  const past = long ? guard.stopLossPriceUsd <= liquidation : guard.stopLossPriceUsd >= liquidation;
  if (!past) return [];
  return refuse(`the stop-loss at ${guard.stopLossPriceUsd} fires ${long ? 'at or below' : 'at or above'} ${liquidation}, where a ${guard.side} of ${what} entered at ${worst} (${held === undefined ? 'the worst price its request accepts' : 'with this request at the worst price it accepts'}) is liquidated; the keeper would liquidate it before the stop`);
}

/** The entry of two sizes at two prices: total size over the sum of size / price, rounded up for a long, down for a short. */
function weightedEntry(sizeA: bigint, priceA: bigint, sizeB: bigint, priceB: bigint, long: boolean): bigint {
  // size / price at a scale that keeps the digits: USD × 10^6 over USD × 10^6, times 10^12.
  const SCALE = 10n ** 12n;
  const units = (sizeA * SCALE) / priceA + (sizeB * SCALE) / priceB;
  const total = (sizeA + sizeB) * SCALE;
  return long ? (total + units - 1n) / units : total / units;
}

/** TP/SL instructions an open or increase carries beside its increase (the request's tpsl member). */
const ATTACHED_TPSL: ReadonlySet<string> = new Set(['instantCreateTpsl', 'createDecreasePositionRequest2']);

/**
 * The TP/SL an open or increase attaches: each one the intent names exactly once, for the whole
 * position the increase acts on, at exactly its trigger; none besides. A missing stop-loss would
 * open a position without a stop; a moved trigger is a different stop than the one decided.
 */
function checkAttachedTpsl(attached: ReadonlyArray<{ ix: DecodedInstruction; parsed: PerpsInstruction }>, b: PerpsIntentBounds, ctx: PolicyContext, payments: Outflow[]): Violation[] {
  const out: Violation[] = [];
  const wanted = [...(b.attachedTpsl ?? [])];
  // The account rules as for any TP/SL create (owner, position derived from the wallet, request PDA),
  // bounded to the increase's position, the whole of it, and no market fill.
  const asTpsl: PerpsIntentBounds = { positionPubkey: b.positionPubkey, entirePosition: true, triggerOnly: true };
  for (const { ix, parsed } of attached) {
    out.push(...checkInstruction(ix, parsed, { ...ctx, intent: { ...ctx.intent, perps: asTpsl } }, payments));
    const where = `instruction ${ix.index} (${parsed.type})`;
    const trigger = bigintArg(parsed, 'triggerPrice');
    const above = parsed.args.triggerAboveThreshold;
    const at = wanted.findIndex((w) => w.triggerPriceUsd === trigger && w.triggerAboveThreshold === above);
    if (at < 0) {
      out.push({ rule: 'intent_exceeded', detail: `${where}: a TP/SL at ${String(trigger ?? 'no trigger')} firing ${above === true ? 'above' : 'below'} it is not one the intent attaches` });
      continue;
    }
    const [match] = wanted.splice(at, 1);
    if (parsed.args.entirePosition !== true) out.push({ rule: 'intent_exceeded', detail: `${where}: the attached TP/SL does not close the entire position` });
    // The book files the reply's request under this stop or take-profit: naming another one (the
    // take-profit as the stop, say) would let a loosening of the real stop pass as a tightening.
    if (match?.requestPubkey !== undefined && parsed.accounts.positionRequest !== match.requestPubkey) {
      out.push({ rule: 'intent_exceeded', detail: `${where}: creates request ${String(parsed.accounts.positionRequest)}; the build's reply names ${match.requestPubkey} for the TP/SL at this trigger` });
    }
    // Paid out in another mint than asked, the stop's close becomes a swap of the whole payout with no floor.
    const paysOut = parsed.accounts.desiredMint;
    if (match?.desiredMint !== undefined && paysOut !== match.desiredMint) {
      out.push({ rule: 'intent_exceeded', detail: `${where}: the attached TP/SL pays out in ${String(paysOut ?? 'no mint')}; the build asked for ${match.desiredMint}` });
    }
  }
  for (const w of wanted) {
    out.push({ rule: 'intent_exceeded', detail: `the intent's TP/SL at ${w.triggerPriceUsd} (firing ${w.triggerAboveThreshold ? 'above' : 'below'}) is not attached: the position would open without it` });
  }
  return out;
}

export interface ProductReport {
  readonly violations: Violation[];
  /**
   * Tokens the perps instructions take from the wallet by argument (collateral, deposits): the
   * program moves them by CPI, invisible to the value-flow rule, so the intent rule adds them to
   * the transaction's other outflows of the same mint.
   */
  readonly payments: Outflow[];
}

function checkInstruction(ix: DecodedInstruction, p: PerpsInstruction, ctx: PolicyContext, payments: Outflow[]): Violation[] {
  const out: Violation[] = [];
  const wallet = ctx.wallet.toBase58();
  const a = p.accounts;
  const where = `instruction ${ix.index} (${p.type})`;
  const account = (detail: string) => out.push({ rule: 'product_account', detail: `${where}: ${detail}` });

  if (p.extraAccounts.length > 0) account(`${p.extraAccounts.length} accounts beyond the layout (${p.extraAccounts.join(', ')})`);
  if (a.owner !== wallet) account(`owner is ${a.owner}, not the wallet`);
  for (const [role, expected] of Object.entries(FIXED_ROLES)) {
    if (a[role] !== undefined && a[role] !== expected) account(`${role} is ${a[role]}, expected ${expected}`);
  }
  for (const role of CUSTODY_ROLES) {
    if (a[role] !== undefined && CUSTODY_MINT[a[role]] === undefined) account(`${role} ${a[role]} is not a custody of the pool`);
  }
  for (const role of MINT_ROLES) {
    if (a[role] !== undefined && PERPS_MINT_TOKEN_PROGRAM[a[role]] === undefined) account(`${role} ${a[role]} is not a mint the perps program trades`);
  }

  const mintOfRole = new Map<string, string>();
  for (const { role, mint } of walletTokenRoles(p)) {
    const address = a[role] ?? '';
    const found = mint === 'any' ? Object.keys(PERPS_MINT_TOKEN_PROGRAM).find((m) => walletAta(ctx.wallet, m) === address) : walletAta(ctx.wallet, mint) === address ? mint : undefined;
    if (found === undefined) account(`${role} ${address} is not the wallet's associated token account of ${mint === 'any' ? 'a perps mint' : `mint ${mint}`}`);
    else mintOfRole.set(role, found);
  }

  if (p.type === 'closePositionRequest' && a.ownerAta !== undefined && a.ownerAta !== PROGRAMS.perps && !Object.keys(PERPS_MINT_TOKEN_PROGRAM).some((m) => walletAta(ctx.wallet, m) === a.ownerAta)) {
    account(`ownerAta ${a.ownerAta} is neither absent nor the wallet's token account of a perps mint`);
  }
  const side = checkPosition(p, wallet, account);
  checkRequest(p, a.position, account);

  const bounds = ctx.intent?.perps;
  if (bounds) out.push(...checkBounds(p, bounds, side, where));
  const paidArg = PAID_IN_ARGUMENT[p.type];
  const paidMint = mintOfRole.get('fundingAccount') ?? mintOfRole.get('userTokenAccount');
  const paid = paidArg === undefined ? undefined : p.args[paidArg];
  if (typeof paid === 'string' && paidMint !== undefined && paid !== '0') {
    payments.push({ asset: paidMint, amount: BigInt(paid), to: PROGRAMS.perps, instruction: ix.index });
  }
  return out;
}

function walletAta(wallet: PublicKey, mint: string): string {
  const program = PERPS_MINT_TOKEN_PROGRAM[mint];
  if (program === undefined) return '';
  return associatedTokenAccountOf(wallet.toBase58(), mint, program);
}

/** The position must derive from the wallet; returns the side it derives with. */
function checkPosition(p: PerpsInstruction, wallet: string, account: (detail: string) => void): PerpsSide | undefined {
  const a = p.accounts;
  if (a.position === undefined) return undefined;
  // Closing a request names no custody, so its position cannot be derived here; what it closes is
  // bound instead: the request must be the one the intent names (checkBounds), its rent goes back
  // to the owner, and ownerAta may only be absent or the wallet's own token account.
  if (p.type === 'closePositionRequest') return undefined;
  const custody = a.custody;
  if (custody === undefined || CUSTODY_MINT[custody] === undefined) {
    account(`position ${a.position} cannot be derived without a custody of the pool`);
    return undefined;
  }
  const collaterals = a.collateralCustody !== undefined ? [a.collateralCustody] : Object.keys(CUSTODY_MINT);
  const argSide = p.args.side;
  const sides: PerpsSide[] = argSide === 'long' || argSide === 'short' ? [argSide] : ['long', 'short'];
  for (const collateral of collaterals) {
    if (CUSTODY_MINT[collateral] === undefined) continue;
    for (const side of sides) {
      if (perpsPositionAddress(wallet, custody, collateral, side) === a.position) return side;
    }
  }
  account(`position ${a.position} is not derived from the wallet (["position", wallet, pool, custody, collateralCustody, side])`);
  return undefined;
}

/** A request created here derives from the position and its counter; its escrow is the request's ATA. */
function checkRequest(p: PerpsInstruction, position: string | undefined, account: (detail: string) => void): void {
  const a = p.accounts;
  const counter = p.args.counter;
  if (a.positionRequest === undefined || typeof counter !== 'string' || position === undefined) return;
  const change = INCREASE_REQUESTS.has(p.type) ? 'increase' : 'decrease';
  if (!isPerpsPositionRequestAddress(a.positionRequest, position, BigInt(counter), change)) {
    account(`positionRequest ${a.positionRequest} is not derived from the position (["position_request", position, ${counter}, ${change}])`);
    return;
  }
  const mint = a.inputMint ?? a.desiredMint;
  if (a.positionRequestAta !== undefined && mint !== undefined) {
    const isEscrow = PERPS_MINT_TOKEN_PROGRAM[mint] !== undefined && isAssociatedTokenAccountOf(a.positionRequestAta, a.positionRequest, mint, PROGRAMS.token);
    if (!isEscrow) account(`positionRequestAta ${a.positionRequestAta} is not the request's token account of mint ${mint}`);
  }
}

/** The increases that pay collateral in (an open's or an increase's request). */
const INCREASES_PAYING_COLLATERAL: ReadonlySet<string> = new Set(['createIncreasePositionMarketRequest', 'instantIncreasePosition']);

/** Decreases and TP/SL creations: the instructions whose size the intent fixes. */
const SIZED_REQUESTS: ReadonlySet<string> = new Set(['createDecreasePositionMarketRequest', 'instantDecreasePosition', 'createDecreasePositionRequest2', 'instantCreateTpsl']);

/** Requests that fill at the market price when the keeper executes them (a request2 only with requestType market). */
const MARKET_FILLS: ReadonlySet<string> = new Set([
  'createIncreasePositionMarketRequest',
  'createDecreasePositionMarketRequest',
  'createDecreasePositionRequest2',
  'instantIncreasePosition',
  'instantDecreasePosition',
]);

const BPS = 10_000n;
function bigintArg(p: PerpsInstruction, name: string): bigint | undefined {
  const value = p.args[name];
  return typeof value === 'string' ? BigInt(value) : undefined;
}

function checkBounds(p: PerpsInstruction, b: PerpsIntentBounds, side: PerpsSide | undefined, where: string): Violation[] {
  const out: Violation[] = [];
  const exceeded = (detail: string) => out.push({ rule: 'intent_exceeded', detail: `${where}: ${detail}` });
  const a = p.accounts;
  if (b.positionPubkey !== undefined && a.position !== undefined && a.position !== b.positionPubkey) {
    out.push({ rule: 'product_account', detail: `${where}: acts on position ${a.position}; the intent names ${b.positionPubkey}` });
  }
  const updates = p.args.counter === undefined && a.positionRequest !== undefined;
  if (updates && b.positionRequestPubkey !== undefined && a.positionRequest !== b.positionRequestPubkey) {
    out.push({ rule: 'product_account', detail: `${where}: changes request ${a.positionRequest}; the intent names ${b.positionRequestPubkey}` });
  }
  const size = bigintArg(p, 'sizeUsdDelta');
  if (size !== undefined && b.maxSizeUsdDelta !== undefined && size > b.maxSizeUsdDelta) exceeded(`sizeUsdDelta ${size} is above the intent's ${b.maxSizeUsdDelta}`);
  // An instant increase may leave the amount out (None): it pays nothing in then, which is not the intent's amount either.
  const paidIn = INCREASES_PAYING_COLLATERAL.has(p.type) ? (bigintArg(p, 'collateralTokenDelta') ?? 0n) : undefined;
  if (b.collateralTokenDelta !== undefined && paidIn !== undefined && paidIn !== b.collateralTokenDelta) {
    exceeded(`collateralTokenDelta ${paidIn} differs from the intent's ${b.collateralTokenDelta}: the size would stand on other margin than the leverage judged`);
  }
  const collateral = bigintArg(p, 'collateralUsdDelta');
  if (collateral !== undefined && b.maxCollateralUsdDelta !== undefined && collateral > b.maxCollateralUsdDelta) {
    exceeded(`collateralUsdDelta ${collateral} is above the intent's ${b.maxCollateralUsdDelta}`);
  }
  if (collateral !== undefined && b.maxCollateralShareUsd !== undefined && collateral > b.maxCollateralShareUsd) {
    out.push({ rule: 'collateral_share', detail: `${where}: collateralUsdDelta ${collateral} is above the cut's share of the collateral last read (${b.maxCollateralShareUsd}): the intent names none, and a build must not empty the margin behind its cut` });
  }
  if (p.args.entirePosition === true && b.entirePosition !== true) exceeded('closes the entire position; the intent does not');
  // Paid out in another mint than asked, a close becomes a swap of the whole payout with no floor.
  if (b.desiredMint !== undefined && a.desiredMint !== undefined && a.desiredMint !== b.desiredMint) exceeded(`pays out in ${a.desiredMint}; the intent receives ${b.desiredMint}`);
  // A close must be one (a tiny partial decrease in its place protects nothing), and a partial
  // decrease or TP/SL must be of exactly the intent's size, not of a sliver of it.
  if (SIZED_REQUESTS.has(p.type)) {
    if (b.entirePosition === true && p.args.entirePosition !== true) exceeded(`does not close the entire position (entirePosition ${String(p.args.entirePosition ?? 'absent')}); the intent does`);
    // (Above it is refused as above: one verdict per fault.)
    else if (b.entirePosition !== true && p.args.entirePosition !== true && b.maxSizeUsdDelta !== undefined && size !== undefined && size < b.maxSizeUsdDelta) {
      exceeded(`sizeUsdDelta ${size} is below the intent's ${b.maxSizeUsdDelta}: a sliver of the decrease asked for`);
    }
  }
  const trigger = bigintArg(p, 'triggerPrice');
  if (trigger !== undefined && b.triggerPriceUsd !== undefined && trigger !== b.triggerPriceUsd) exceeded(`triggerPrice ${trigger} differs from the intent's ${b.triggerPriceUsd}`);
  const fillsAtMarket = MARKET_FILLS.has(p.type) && (p.type !== 'createDecreasePositionRequest2' || p.args.requestType === 'market');
  if (b.triggerOnly === true) {
    // A TP/SL waits for its trigger: a market fill would close the position now, at any price.
    if (fillsAtMarket) exceeded(`${p.type} fills at the market; a TP/SL intent only places trigger requests`);
    else if (p.type === 'createDecreasePositionRequest2' && trigger === undefined) exceeded('a trigger request without triggerPrice');
  }
  if (b.triggerAboveThreshold !== undefined && (p.type === 'createDecreasePositionRequest2' || p.type === 'instantCreateTpsl' || p.type === 'instantCreateLimitOrder') && !fillsAtMarket) {
    const above = p.args.triggerAboveThreshold;
    if (above !== b.triggerAboveThreshold) {
      exceeded(`triggerAboveThreshold is ${String(above ?? 'absent')}; the intent's request fires ${b.triggerAboveThreshold ? 'above' : 'below'} its trigger`);
    }
  }
  if (b.lpMint !== undefined && p.type === 'addLiquidity2') out.push(...checkLpMint(p, b.lpMint, where));
  if (b.depositBorrow !== undefined) out.push(...checkLending(p, b.depositBorrow, where));
  const worst = bigintArg(p, 'priceSlippage');
  if (b.requirePriceBound === true && fillsAtMarket) {
    if (worst === undefined) exceeded('a market request without priceSlippage fills at any price');
    else if (b.referencePriceUsd === undefined || b.maxSlippageBps === undefined) exceeded(`priceSlippage ${worst} cannot be bounded: no fresh mark price of the position is known`);
  }
  // A market fill a TP/SL intent refused above needs no second verdict on its price.
  const refusedAsMarket = b.triggerOnly === true && fillsAtMarket;
  if (worst !== undefined && side !== undefined && !refusedAsMarket && b.referencePriceUsd !== undefined && b.maxSlippageBps !== undefined) {
    // Buying (long increase, short decrease) accepts prices up to the bound; selling down to it.
    // Each bound is rounded towards the stricter side.
    const buys = INCREASE_REQUESTS.has(p.type) || p.type === 'instantIncreasePosition' ? side === 'long' : side === 'short';
    if (!buys && b.maxSlippageBps >= BPS) {
      exceeded(`a slippage of ${b.maxSlippageBps} bps leaves a sale no floor price`);
    } else {
      const bound = buys ? (b.referencePriceUsd * (BPS + b.maxSlippageBps)) / BPS : (b.referencePriceUsd * (BPS - b.maxSlippageBps) + BPS - 1n) / BPS;
      if (buys ? worst > bound : worst < bound) exceeded(`priceSlippage ${worst} accepts a worse price than ${bound} (${b.maxSlippageBps} bps from ${b.referencePriceUsd})`);
    }
  }
  return out;
}

/** An LP mint deposits exactly the intent's amount of its mint, asks no pre-swap, and takes no less LP than the intent accepts. */
function checkLpMint(p: PerpsInstruction, b: NonNullable<PerpsIntentBounds['lpMint']>, where: string): Violation[] {
  const out: Violation[] = [];
  const exceeded = (detail: string) => out.push({ rule: 'intent_exceeded', detail: `${where}: ${detail}` });
  const custodyMint = p.accounts.custody === undefined ? undefined : CUSTODY_MINT[p.accounts.custody];
  if (custodyMint !== undefined && custodyMint !== b.depositMint) {
    out.push({ rule: 'product_account', detail: `${where}: deposits into the custody of mint ${custodyMint}; the intent deposits mint ${b.depositMint}` });
  }
  const amountIn = bigintArg(p, 'tokenAmountIn');
  if (amountIn !== b.tokenAmountIn) exceeded(`tokenAmountIn ${String(amountIn)} differs from the intent's ${b.tokenAmountIn}`);
  if (p.args.tokenAmountPreSwap !== null && p.args.tokenAmountPreSwap !== undefined) exceeded(`swaps ${String(p.args.tokenAmountPreSwap)} before the deposit (tokenAmountPreSwap); the intent deposits its token as it is`);
  const minLp = bigintArg(p, 'minLpAmountOut');
  if (b.minLpAmountOut !== undefined && minLp !== undefined && minLp < b.minLpAmountOut) exceeded(`minLpAmountOut ${minLp} is below the intent's minLpAmount ${b.minLpAmountOut}`);
  return out;
}

/** A deposit moves exactly the intent's JLP; a borrow takes exactly its USDC, from the USDC custody. */
function checkLending(p: PerpsInstruction, b: NonNullable<PerpsIntentBounds['depositBorrow']>, where: string): Violation[] {
  const out: Violation[] = [];
  const amount = bigintArg(p, 'amount');
  if (p.type === 'depositCollateralForBorrows' && amount !== b.depositAmount) {
    out.push({ rule: 'intent_exceeded', detail: `${where}: deposits ${String(amount)} JLP; the intent deposits ${b.depositAmount}` });
  }
  if (p.type === 'borrowFromCustody') {
    if (amount !== b.borrowAmount) out.push({ rule: 'intent_exceeded', detail: `${where}: borrows ${String(amount)} USDC; the intent borrows ${b.borrowAmount}` });
    const custodyMint = p.accounts.custody === undefined ? undefined : CUSTODY_MINT[p.accounts.custody];
    if (custodyMint !== undefined && custodyMint !== MINTS.USDC) out.push({ rule: 'product_account', detail: `${where}: borrows from the custody of mint ${custodyMint}; the intent borrows USDC` });
  }
  return out;
}

/** A deposit-borrow: at most one deposit and one borrow, and each one the intent asks for (a non-zero amount) is there. */
function checkLendingSet(acting: readonly PerpsInstruction[], b: NonNullable<PerpsIntentBounds['depositBorrow']>): Violation[] {
  const out: Violation[] = [];
  const wanted: Array<[string, bigint, string]> = [
    ['depositCollateralForBorrows', b.depositAmount, 'deposits'],
    ['borrowFromCustody', b.borrowAmount, 'borrows'],
  ];
  for (const [type, amount, verb] of wanted) {
    const count = acting.filter((p) => p.type === type).length;
    if (count > 1) out.push({ rule: 'intent_exceeded', detail: `${count} ${type} instructions; the intent ${verb} once` });
    if (count === 0 && amount > 0n) out.push({ rule: 'intent_exceeded', detail: `no ${type} instruction; the intent ${verb} ${amount}` });
  }
  return out;
}
