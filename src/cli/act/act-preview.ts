import { MARKET_SYMBOL, MINT_DECIMALS, MINTS } from '../../api/mints.ts';
import type { DecodedTransaction } from '../../chain/decode.ts';
import { formatTokenAmount, formatUsd } from '../../kernel/money-text.ts';
import type { ActionRecord } from '../../records/action-record.ts';
import type { Intent } from '../../sdk/intent.ts';
import type { PositionView } from '../../sdk/position-view.ts';

/** A network fee per signature, in lamports (Solana's base fee). */
const BASE_FEE_LAMPORTS = 5_000n;

const SYMBOLS: ReadonlyMap<string, string> = new Map(Object.entries(MINTS).map(([symbol, mint]) => [mint, symbol]));

function token(mint: string, amount: string | bigint): string {
  const decimals = MINT_DECIMALS[mint];
  const symbol = SYMBOLS.get(mint) ?? mint;
  return decimals === undefined ? `${String(amount)} (smallest unit) of ${symbol}` : formatTokenAmount(BigInt(amount), decimals, symbol);
}

/** The intent in human units: what the operator asked for. */
function describeIntent(intent: Intent): string {
  switch (intent.type) {
    case 'open':
    case 'increase': {
      const how = intent.leverage !== undefined ? `${intent.leverage}× leverage` : `size ${formatUsd(BigInt(intent.sizeUsdDelta ?? '0'))}`;
      const stops = [intent.stopLossPrice ? `stop-loss ${formatUsd(BigInt(intent.stopLossPrice))}` : '', intent.takeProfitPrice ? `take-profit ${formatUsd(BigInt(intent.takeProfitPrice))}` : ''].filter(Boolean).join(', ');
      return `${intent.type} ${MARKET_SYMBOL[intent.marketMint]} ${intent.side}: ${token(intent.inputMint ?? intent.collateralMint, intent.collateralTokenDelta)} collateral, ${how}${stops ? `, ${stops}` : ''}`;
    }
    case 'add-collateral':
      return `add ${token(intent.inputMint ?? intent.collateralMint, intent.collateralTokenDelta)} collateral to ${MARKET_SYMBOL[intent.marketMint]} ${intent.side} ${intent.positionPubkey}`;
    case 'decrease':
    case 'decrease-with-fee':
      return intent.entirePosition ? `close ${MARKET_SYMBOL[intent.marketMint]} ${intent.side} ${intent.positionPubkey}, paid out in ${intent.receiveToken}` : `decrease ${MARKET_SYMBOL[intent.marketMint]} ${intent.side} ${intent.positionPubkey} by ${formatUsd(BigInt(intent.sizeUsdDelta ?? '0'))}, paid out in ${intent.receiveToken}`;
    case 'tpsl-create':
      return `${intent.requestType === 'sl' ? 'stop-loss' : 'take-profit'} at ${formatUsd(BigInt(intent.triggerPrice))} on ${MARKET_SYMBOL[intent.marketMint]} ${intent.side} ${intent.positionPubkey}`;
    case 'trigger-create':
      return `trigger order: sell ${token(intent.inputMint, intent.makingAmount)} for ${token(intent.outputMint, intent.takingAmount)}`;
    case 'trigger-cancel':
      return `cancel trigger order ${intent.order}`;
    case 'trigger-cancel-all':
      return intent.orders ? `cancel trigger orders ${intent.orders.join(', ')}` : 'cancel every open trigger order';
    case 'swap':
      return `swap ${token(intent.inputMint, intent.amount)} for ${SYMBOLS.get(intent.outputMint) ?? intent.outputMint}`;
    case 'lp-mint':
      return `mint LP with ${intent.depositTokenAmount} (smallest unit) of ${intent.depositToken}`;
    case 'deposit-borrow':
      return `deposit ${token(MINTS.JLP, intent.depositTokenAmount)}, borrow ${token(MINTS.USDC, intent.borrowTokenAmount)}`;
    case 'recurring-create':
      return `recurring: sell ${token(intent.inputMint, intent.inAmount)} for ${SYMBOLS.get(intent.outputMint) ?? intent.outputMint} in ${intent.numberOfOrders} orders, one every ${intent.intervalSec} s`;
    case 'recurring-cancel':
      return `cancel recurring order ${intent.order}`;
    case 'studio-claim-fee':
      return `claim the fees of pool ${intent.poolAddress} (at most ${intent.maxQuoteAmount} of the quote token, smallest unit)`;
    default:
      return (intent as Intent).type;
  }
}

/** What the position looks like once this lands, from the wallet's latest snapshot of it. */
function resultingPosition(intent: Intent, position: PositionView | undefined): string | undefined {
  if (!position) return undefined;
  const now = `${MARKET_SYMBOL[position.marketMint]} ${position.side} size ${formatUsd(position.sizeUsd)}, mark ${formatUsd(position.markPriceUsd)}, liquidation ${formatUsd(position.liquidationPriceUsd)}`;
  if (intent.type === 'decrease' || intent.type === 'decrease-with-fee') {
    const left = intent.entirePosition ? 0n : position.sizeUsd - BigInt(intent.sizeUsdDelta ?? '0');
    return `position now: ${now}; after: size ${formatUsd(left < 0n ? 0n : left)}${left <= 0n ? ' (closed)' : ''}`;
  }
  if (intent.type === 'increase') return `position now: ${now}; after: size about ${formatUsd(position.sizeUsd + BigInt(intent.notionalUsd))}`;
  return `position now: ${now}`;
}

/**
 * The preview `stratd act` prints before it asks: the intent, the decoded transaction the
 * executor built and the policy passed (as `stratd tx inspect` decodes it), its fees, and the
 * resulting position where one is known. Human units throughout.
 */
export function previewLines(record: ActionRecord, decoded: DecodedTransaction, position: PositionView | undefined): string[] {
  const budget = decoded.computeBudget;
  const priority = budget.explicitPriorityFeeLamports !== null
    ? BigInt(budget.explicitPriorityFeeLamports)
    : budget.unitLimit !== null && budget.unitPriceMicroLamports !== null
      ? (BigInt(budget.unitLimit) * BigInt(budget.unitPriceMicroLamports) + 999_999n) / 1_000_000n
      : 0n;
  const base = BASE_FEE_LAMPORTS * BigInt(decoded.signers.length);
  const lines = [
    `action ${record.actionId} (${record.operationId ?? '?'}, ${record.route ?? '?'})`,
    `  ${describeIntent(record.intent)}`,
    `transaction: ${decoded.version === 'legacy' ? 'legacy' : 'v0'} message sha256 ${decoded.messageSha256}, fee payer ${decoded.feePayer}, blockhash ${decoded.recentBlockhash}`,
    ...decoded.instructions.map((ix) => `  #${ix.index} ${ix.programName}${ix.parsed ? ` ${ix.parsed.type}` : ''} (${ix.accounts.length} accounts)`),
    `fees: ${formatTokenAmount(base + priority, 9, 'SOL')} at most (base ${base} + priority ${priority} lamports${budget.unitLimit === null ? '' : `, ${budget.unitLimit} compute units`})`,
  ];
  if (record.builtNotionalUsd !== undefined) lines.push(`quoted notional: ${formatUsd(BigInt(record.builtNotionalUsd))}`);
  if (record.realisedPnlUsd !== undefined) lines.push(`realised PnL on landing (quote): ${formatUsd(BigInt(record.realisedPnlUsd))}`);
  const result = resultingPosition(record.intent, position);
  if (result) lines.push(result);
  lines.push('signing policy: passed');
  return lines;
}
