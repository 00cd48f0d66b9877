import { PublicKey, TransactionInstruction } from '@solana/web3.js';
import { MINTS } from '../../api/mints.ts';
import { encodePerpsInstructionData, type PerpsArgInput } from '../../chain/programs/perps/codec.ts';
import { PERPETUALS_ADDRESS, TRANSFER_AUTHORITY_ADDRESS, type PerpsSide } from '../../chain/programs/perps/addresses.ts';
import { PERPS_INSTRUCTIONS, type PerpsInstructionName } from '../../chain/programs/perps/instructions.ts';
import { findProgramAddress } from '../../chain/program-address.ts';
import { PERPS_ACCOUNTS, PROGRAMS } from '../../chain/programs.ts';
import { derivedAddress } from '../market/keys.ts';

/**
 * The perps program's own instructions, as the live service puts them in a trader's transaction:
 * the IDL's discriminators, account order and flags, and borsh arguments. Paper transactions so
 * have the shape live ones have, and the signing policy judges the same instructions in both.
 * Accounts the live program reads from its custody accounts (oracle feeds, custody token
 * accounts) are stand-ins derived from the custody; Anchor's "none" for an optional account is
 * the program id.
 */

const keys = new Map<string, PublicKey>();
function pk(address: string): PublicKey {
  let key = keys.get(address);
  if (!key) {
    key = new PublicKey(address);
    // The text is known: spare the message compiler a base58 encoding per use.
    Object.defineProperty(key, 'toBase58', { value: () => address });
    if (keys.size > 20_000) keys.clear();
    keys.set(address, key);
  }
  return key;
}

const atas = new Map<string, string>();
/** The associated token account of `owner` for `mint` (every perps mint is a classic SPL Token mint). */
export function tokenAccountOf(owner: string, mint: string): string {
  const id = `${owner}:${mint}`;
  let address = atas.get(id);
  if (!address) {
    address = findProgramAddress([pk(owner).toBytes(), pk(PROGRAMS.token).toBytes(), pk(mint).toBytes()], pk(PROGRAMS.associatedToken)).address;
    if (atas.size > 20_000) atas.clear();
    atas.set(id, address);
  }
  return address;
}

/** Stand-ins for the oracle and token accounts a custody names on-chain. */
function custodyAccounts(custody: string): { doves: string; pythnet: string; tokenAccount: string } {
  return {
    doves: derivedAddress('custody-doves-price', custody),
    pythnet: derivedAddress('custody-pythnet-price', custody),
    tokenAccount: derivedAddress('custody-token-account', custody),
  };
}

/** One instruction: accounts by IDL role (every role required), arguments by IDL name. */
export function perpsInstruction(name: PerpsInstructionName, accounts: Readonly<Record<string, string>>, args: Readonly<Record<string, PerpsArgInput>>): TransactionInstruction {
  const layout = PERPS_INSTRUCTIONS[name];
  return new TransactionInstruction({
    programId: pk(PROGRAMS.perps),
    keys: layout.accounts.map((spec) => {
      const address = accounts[spec.name];
      if (address === undefined) throw new TypeError(`${name}: account ${spec.name} is missing`);
      return { pubkey: pk(address), isSigner: spec.signer, isWritable: spec.writable };
    }),
    data: encodePerpsInstructionData(name, args),
  });
}

const COMMON = {
  perpetuals: PERPETUALS_ADDRESS,
  transferAuthority: TRANSFER_AUTHORITY_ADDRESS,
  pool: PERPS_ACCOUNTS.pool,
  referral: PROGRAMS.perps,
  tokenLedger: PROGRAMS.perps,
  tokenProgram: PROGRAMS.token,
  associatedTokenProgram: PROGRAMS.associatedToken,
  systemProgram: PROGRAMS.system,
  eventAuthority: PERPS_ACCOUNTS.eventAuthority,
  program: PROGRAMS.perps,
};

export interface PositionKeys {
  readonly owner: string;
  readonly position: string;
  readonly custody: string;
  readonly collateralCustody: string;
}

/** A request account and the counter it was derived with. */
interface RequestKey {
  readonly pubkey: string;
  readonly counter: bigint;
}

function positionAccounts(p: PositionKeys, keeper?: string): Record<string, string> {
  const custody = custodyAccounts(p.custody);
  const collateral = custodyAccounts(p.collateralCustody);
  return {
    ...COMMON,
    ...(keeper ? { keeper, apiKeeper: keeper } : {}),
    owner: p.owner,
    position: p.position,
    custody: p.custody,
    custodyDovesPriceAccount: custody.doves,
    custodyPythnetPriceAccount: custody.pythnet,
    collateralCustody: p.collateralCustody,
    collateralCustodyDovesPriceAccount: collateral.doves,
    collateralCustodyPythnetPriceAccount: collateral.pythnet,
    collateralCustodyTokenAccount: collateral.tokenAccount,
  };
}

interface IncreaseArgs {
  readonly inputMint: string;
  readonly side: PerpsSide;
  readonly sizeUsdDelta: bigint;
  readonly collateralTokenDelta: bigint;
  readonly priceSlippage: bigint;
}

/** Legacy: a market increase request the keeper fills; instant: the keeper co-signs and fills at once. */
export function increaseInstruction(p: PositionKeys, a: IncreaseArgs, route: { keeper: string; requestTimeSec: bigint } | { request: RequestKey }): TransactionInstruction {
  const fundingAccount = tokenAccountOf(p.owner, a.inputMint);
  if ('keeper' in route) {
    return perpsInstruction('instantIncreasePosition', { ...positionAccounts(p, route.keeper), fundingAccount }, {
      sizeUsdDelta: a.sizeUsdDelta, collateralTokenDelta: a.collateralTokenDelta, side: a.side, priceSlippage: a.priceSlippage, requestTime: route.requestTimeSec,
    });
  }
  return perpsInstruction('createIncreasePositionMarketRequest', {
    ...positionAccounts(p), fundingAccount, inputMint: a.inputMint,
    positionRequest: route.request.pubkey, positionRequestAta: tokenAccountOf(route.request.pubkey, a.inputMint),
  }, {
    sizeUsdDelta: a.sizeUsdDelta, collateralTokenDelta: a.collateralTokenDelta, side: a.side, priceSlippage: a.priceSlippage, jupiterMinimumOut: null, counter: route.request.counter,
  });
}

interface DecreaseArgs {
  readonly desiredMint: string;
  readonly sizeUsdDelta: bigint;
  readonly collateralUsdDelta: bigint;
  readonly entirePosition: boolean;
  readonly priceSlippage: bigint;
}

export function decreaseInstruction(p: PositionKeys, a: DecreaseArgs, route: { keeper: string; requestTimeSec: bigint } | { request: RequestKey }): TransactionInstruction {
  const receivingAccount = tokenAccountOf(p.owner, a.desiredMint);
  const amounts = { collateralUsdDelta: a.collateralUsdDelta, sizeUsdDelta: a.sizeUsdDelta, priceSlippage: a.priceSlippage, entirePosition: a.entirePosition };
  if ('keeper' in route) {
    return perpsInstruction('instantDecreasePosition', { ...positionAccounts(p, route.keeper), receivingAccount, desiredMint: a.desiredMint }, { ...amounts, requestTime: route.requestTimeSec });
  }
  return perpsInstruction('createDecreasePositionMarketRequest', {
    ...positionAccounts(p), receivingAccount, desiredMint: a.desiredMint,
    positionRequest: route.request.pubkey, positionRequestAta: tokenAccountOf(route.request.pubkey, a.desiredMint),
  }, { ...amounts, jupiterMinimumOut: null, counter: route.request.counter });
}

interface TpslArgs {
  readonly request: RequestKey;
  readonly desiredMint: string;
  readonly sizeUsdDelta: bigint;
  readonly triggerPrice: bigint;
  readonly triggerAboveThreshold: boolean;
  readonly entirePosition: boolean;
}

/** A TP/SL: a trigger decrease request (instant: created with the keeper's co-signature). */
export function createTpslInstruction(p: PositionKeys, a: TpslArgs, route: { keeper: string; requestTimeSec: bigint } | 'legacy'): TransactionInstruction {
  const accounts = {
    ...positionAccounts(p, route === 'legacy' ? undefined : route.keeper),
    receivingAccount: tokenAccountOf(p.owner, a.desiredMint), desiredMint: a.desiredMint,
    positionRequest: a.request.pubkey, positionRequestAta: tokenAccountOf(a.request.pubkey, a.desiredMint),
  };
  if (route === 'legacy') {
    return perpsInstruction('createDecreasePositionRequest2', accounts, {
      collateralUsdDelta: 0n, sizeUsdDelta: a.sizeUsdDelta, requestType: 'trigger', priceSlippage: null, jupiterMinimumOut: null,
      triggerPrice: a.triggerPrice, triggerAboveThreshold: a.triggerAboveThreshold, entirePosition: a.entirePosition, counter: a.request.counter,
    });
  }
  return perpsInstruction('instantCreateTpsl', accounts, {
    collateralUsdDelta: 0n, sizeUsdDelta: a.sizeUsdDelta, triggerPrice: a.triggerPrice, triggerAboveThreshold: a.triggerAboveThreshold,
    entirePosition: a.entirePosition, counter: a.request.counter, requestTime: route.requestTimeSec,
  });
}

export function updateTpslInstruction(p: PositionKeys, request: string, a: { sizeUsdDelta: bigint; triggerPrice: bigint }, route: { keeper: string; requestTimeSec: bigint }): TransactionInstruction {
  return perpsInstruction('instantUpdateTpsl', { ...positionAccounts(p, route.keeper), positionRequest: request }, { ...a, requestTime: route.requestTimeSec });
}

interface LimitOrderArgs {
  readonly request: RequestKey;
  readonly inputMint: string;
  readonly side: PerpsSide;
  readonly sizeUsdDelta: bigint;
  readonly collateralTokenDelta: bigint;
  readonly triggerPrice: bigint;
}

/** A limit order: a trigger increase request, its input escrowed in the request's token account, created with the keeper's co-signature. */
export function createLimitOrderInstruction(p: PositionKeys, a: LimitOrderArgs, route: { keeper: string; requestTimeSec: bigint }): TransactionInstruction {
  return perpsInstruction('instantCreateLimitOrder', {
    ...positionAccounts(p, route.keeper), fundingAccount: tokenAccountOf(p.owner, a.inputMint), inputMint: a.inputMint,
    positionRequest: a.request.pubkey, positionRequestAta: tokenAccountOf(a.request.pubkey, a.inputMint),
  }, {
    sizeUsdDelta: a.sizeUsdDelta, collateralTokenDelta: a.collateralTokenDelta, side: a.side, triggerPrice: a.triggerPrice,
    // A long buys the dip (fires at or below the trigger), a short sells the rise.
    triggerAboveThreshold: a.side === 'short', counter: a.request.counter, requestTime: route.requestTimeSec,
  });
}

export function updateLimitOrderInstruction(p: PositionKeys, request: string, a: { sizeUsdDelta: bigint; triggerPrice: bigint }, route: { keeper: string; requestTimeSec: bigint }): TransactionInstruction {
  return perpsInstruction('instantUpdateLimitOrder', { ...positionAccounts(p, route.keeper), positionRequest: request }, { ...a, requestTime: route.requestTimeSec });
}

/**
 * A TP/SL or limit-order cancel: closes the request and returns its rent to the owner. The
 * optional keeper is "none" (the program id), and so is ownerAta for a TP/SL (a trigger decrease
 * escrows no tokens); a limit order's escrow returns to the owner's token account. Nothing but the
 * fee payer signs.
 */
export function closeRequestInstruction(owner: string, position: string, request: string, desiredMint: string, escrow: 'none' | 'returned' = 'none'): TransactionInstruction {
  // A limit order's escrow goes back to the owner's token account of its mint.
  const ownerAta = escrow === 'returned' ? tokenAccountOf(owner, desiredMint) : PROGRAMS.perps;
  const ix = perpsInstruction('closePositionRequest', {
    ...COMMON, keeper: PROGRAMS.perps, owner, ownerAta, positionRequest: request, positionRequestAta: tokenAccountOf(request, desiredMint), position,
  }, {});
  // An absent optional account signs nothing.
  for (const key of ix.keys) if (key.pubkey.equals(ix.programId)) key.isSigner = false;
  return ix;
}

/** JLP mint: deposit a custody's token, receive at least `minLpAmountOut` JLP. */
export function addLiquidityInstruction(owner: string, custody: string, depositMint: string, tokenAmountIn: bigint, minLpAmountOut: bigint): TransactionInstruction {
  const c = custodyAccounts(custody);
  return perpsInstruction('addLiquidity2', {
    ...COMMON, owner, fundingAccount: tokenAccountOf(owner, depositMint), lpTokenAccount: tokenAccountOf(owner, MINTS.JLP),
    custody, custodyDovesPriceAccount: c.doves, custodyPythnetPriceAccount: c.pythnet, custodyTokenAccount: c.tokenAccount, lpTokenMint: MINTS.JLP,
  }, { tokenAmountIn, minLpAmountOut, tokenAmountPreSwap: null });
}

/** Deposit JLP as collateral, then borrow USDC from its custody (each only when its amount is set). */
export function depositBorrowInstructions(owner: string, borrowPosition: string, depositJlp: bigint, borrowUsdc: bigint): TransactionInstruction[] {
  const custody = PERPS_ACCOUNTS.custody.USDC;
  const base = { ...COMMON, owner, custody, borrowPosition, lpTokenMint: MINTS.JLP };
  const out: TransactionInstruction[] = [];
  if (depositJlp > 0n || borrowUsdc === 0n) {
    out.push(perpsInstruction('depositCollateralForBorrows', {
      ...base, collateralTokenAccount: derivedAddress('borrow-collateral-token-account', borrowPosition), userTokenAccount: tokenAccountOf(owner, MINTS.JLP),
    }, { amount: depositJlp }));
  }
  if (borrowUsdc > 0n) {
    out.push(perpsInstruction('borrowFromCustody', {
      ...base, custodyTokenAccount: custodyAccounts(custody).tokenAccount, userTokenAccount: tokenAccountOf(owner, MINTS.USDC),
    }, { amount: borrowUsdc }));
  }
  return out;
}

const BPS = 10_000n;
/**
 * The worst price the request accepts: above the quote for buying into a long or closing a short,
 * below it otherwise.
 */
export function slippagePrice(quotedPrice: bigint, slippageBps: bigint, pays: 'more' | 'less'): bigint {
  return pays === 'more' ? (quotedPrice * (BPS + slippageBps)) / BPS : (quotedPrice * (BPS - (slippageBps > BPS ? BPS : slippageBps))) / BPS;
}
