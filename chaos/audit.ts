import type { FleetCounts } from './daemon-fleet.ts';
import type { ActionTrail, LedgerTail } from './ledger-tail.ts';
import type { MemoryGrowth } from './redis-memory.ts';
import type { SettlementWatch, Unsettled } from './settlement-watch.ts';
import type { LandedTx, RequestOutcome, VenueTrade } from './venue.ts';

/** Something that happened to the deployment, with its time span (wall-clock ms). */
/** Intents whose action is a perps market request: landed means the keeper executed it. */
const KEEPER_FILLED_INTENTS: ReadonlySet<string> = new Set(['decrease', 'decrease-with-fee', 'open', 'increase', 'add-collateral']);
/** Intents whose keeper request opens or grows a position: a doubled one is the worst failure of a run. */
const OPENING_INTENTS: ReadonlySet<string> = new Set(['open', 'increase']);

export interface Incident {
  readonly what: string;
  readonly fromMs: number;
  readonly toMs: number;
}

export interface AuditInput {
  readonly wallet: string;
  readonly tail: LedgerTail;
  readonly watch: SettlementWatch;
  readonly landed: readonly LandedTx[];
  readonly trades: readonly VenueTrade[];
  readonly outcomes: readonly RequestOutcome[];
  /** Action ids in `actions:open` at the audit. */
  readonly openSet: ReadonlySet<string>;
  readonly auditAtMs: number;
  readonly stuckAfterMs: number;
  readonly incidents: readonly Incident[];
  readonly fleet: FleetCounts;
  readonly memory: MemoryGrowth;
  readonly redisRestarts: number;
  readonly positionsOpened: number;
  /** A liquidation counts as preventable only when its action had been pending at least this long. */
  readonly preventableAfterMs: number;
  /** Keys under the prefix at the end, by kind. */
  readonly redisKeys: Readonly<Record<string, number>>;
}

/** One problem, for the report's detail list. */
export interface Finding {
  readonly actionId: string;
  readonly why: string;
}

export interface AuditResult {
  readonly actions: {
    readonly decided: number;
    readonly accepted: number;
    readonly byFinalState: Readonly<Record<string, number>>;
    readonly rejectedReasons: Readonly<Record<string, number>>;
    /** Landed actions by intent type (the load's opens, swaps and recurring orders among them). */
    readonly landedByType: Readonly<Record<string, number>>;
  };
  /** Opening actions (open, increase): decided, landed per the ledger, and increases the venue executed for the wallet. */
  readonly opens: { readonly decided: number; readonly landed: number; readonly executedOnVenue: number };
  readonly landedTwice: readonly Finding[];
  readonly multiSignature: readonly Finding[];
  readonly lost: readonly Finding[];
  readonly stuck: readonly Finding[];
  readonly unsettled: readonly Unsettled[];
  readonly landedWithoutOwnFill: readonly Finding[];
  readonly preventableLiquidations: readonly Finding[];
  /** Liquidated while its action was pending, but an outage (API, RPC, Redis, keeper) overlapped the wait. */
  readonly liquidatedDuringOutage: readonly Finding[];
  /** Not a goal of issue 8, but money-relevant: rejected/expired in the ledger, executed on the venue. */
  readonly contradicted: readonly Finding[];
  readonly decidedNeverAccepted: number;
  readonly stillOpenYoung: number;
  readonly liquidations: number;
  readonly walletLandings: number;
  readonly orphanLandings: number;
  readonly riskEntries: Readonly<Record<string, number>>;
  readonly alerts: number;
  readonly ledger: { readonly entries: number; readonly unreadable: number; readonly gaps: number };
  readonly memory: MemoryGrowth;
  readonly fleet: FleetCounts;
  readonly redisRestarts: number;
  readonly positionsOpened: number;
  readonly incidents: readonly Incident[];
  readonly redisKeys: Readonly<Record<string, number>>;
}

const FINAL = new Set(['landed', 'rejected', 'expired']);

/** The position an action is about: from its record, or from the guard's intent key `decrease:<pubkey>`. */
function positionOf(trail: ActionTrail, watch: SettlementWatch): string | undefined {
  const fromRecord = watch.records.get(trail.actionId)?.positionPubkey;
  if (fromRecord) return fromRecord;
  const key = trail.intentKey ?? '';
  const colon = key.lastIndexOf(':');
  return colon >= 0 ? key.slice(colon + 1) : undefined;
}

/** The state an action was in at `atMs`, from its ledger trail. */
function stateAt(trail: ActionTrail, atMs: number): string | undefined {
  let state: string | undefined;
  trail.states.forEach((s, i) => {
    if ((trail.stateTimes[i] ?? Infinity) <= atMs) state = s;
  });
  return state;
}

function count(map: Record<string, number>, key: string): void {
  map[key] = (map[key] ?? 0) + 1;
}

/**
 * The verdict of a run: every action the ledger recorded, held against what the venue says
 * happened (landed transactions, keeper outcomes, trades) and what Redis still holds.
 */
export function audit(input: AuditInput): AuditResult {
  const { tail, watch } = input;
  const landedBySignature = new Map<string, LandedTx[]>();
  for (const l of input.landed) landedBySignature.set(l.signature, [...(landedBySignature.get(l.signature) ?? []), l]);
  const fillsBySignature = new Map<string, VenueTrade[]>();
  for (const t of input.trades) if (t.orderType !== 'Liquidation') fillsBySignature.set(t.txHash, [...(fillsBySignature.get(t.txHash) ?? []), t]);
  const outcomesBySignature = new Map<string, RequestOutcome[]>();
  for (const o of input.outcomes) outcomesBySignature.set(o.signature, [...(outcomesBySignature.get(o.signature) ?? []), o]);

  const byFinalState: Record<string, number> = {};
  const rejectedReasons: Record<string, number> = {};
  const landedTwice: Finding[] = [];
  const multiSignature: Finding[] = [];
  const lost: Finding[] = [];
  const stuck: Finding[] = [];
  const landedWithoutOwnFill: Finding[] = [];
  const contradicted: Finding[] = [];
  const ourSignatures = new Set<string>();
  let decided = 0;
  let accepted = 0;
  let decidedNeverAccepted = 0;
  let stillOpenYoung = 0;

  for (const trail of tail.actions.values()) {
    if (trail.decidedAtMs !== undefined) decided++;
    const record = watch.records.get(trail.actionId);
    const wasAccepted = trail.acceptedAtMs !== undefined || record !== undefined;
    if (!wasAccepted) {
      decidedNeverAccepted++;
      continue;
    }
    accepted++;
    for (const s of trail.signatures) ourSignatures.add(s);
    if (record?.signature) ourSignatures.add(record.signature);
    const finalState = trail.finalState ?? (record && FINAL.has(record.state) ? record.state : undefined);
    count(byFinalState, finalState ?? 'open');
    if (finalState === 'rejected' || finalState === 'expired') count(rejectedReasons, `${finalState}: ${(trail.reason ?? 'no reason').slice(0, 60)}`);

    const signatures = new Set([...trail.signatures, ...(record?.signature ? [record.signature] : [])]);
    if (signatures.size > 1) multiSignature.push({ actionId: trail.actionId, why: `${signatures.size} signatures: ${[...signatures].map((s) => s.slice(0, 10)).join(', ')}` });
    const landings = [...signatures].flatMap((s) => landedBySignature.get(s) ?? []).filter((l) => l.err === null || l.err === undefined);
    const fills = [...signatures].flatMap((s) => fillsBySignature.get(s) ?? []);
    const outcomes = [...signatures].flatMap((s) => outcomesBySignature.get(s) ?? []);
    const executed = outcomes.filter((o) => o.status === 'executed');
    if (landings.length > 1 || fills.length > 1 || executed.length > 1) {
      landedTwice.push({ actionId: trail.actionId, why: `${landings.length} landings, ${fills.length} fills, ${executed.length} executed keeper requests` });
    }
    if (trail.finals.length > 1 && new Set(trail.finals).size > 1) contradicted.push({ actionId: trail.actionId, why: `ledger has several final states: ${trail.finals.join(', ')}` });

    // Only a market request waits for a keeper fill; a TP/SL create or a trigger order lands with
    // its own transaction. An action whose type the ledger did not show is held to the strict rule.
    const awaitsFill = trail.intentType === undefined || KEEPER_FILLED_INTENTS.has(trail.intentType);
    if (finalState === 'landed' && awaitsFill && fills.length === 0 && executed.length === 0) {
      const refused = outcomes.find((o) => o.status === 'rejected');
      landedWithoutOwnFill.push({ actionId: trail.actionId, why: refused ? `the keeper refused its request (${refused.reason ?? 'no reason'})` : landings.length === 0 ? 'its transaction never landed' : 'its request was never executed' });
    }
    // A keeper-filled request is executed by its fill; any other transaction by its own landing.
    const executedOnVenue = fills.length > 0 || executed.length > 0 || (!awaitsFill && landings.length > 0);
    if ((finalState === 'rejected' || finalState === 'expired') && executedOnVenue) {
      contradicted.push({ actionId: trail.actionId, why: `${finalState} in the ledger, but the venue executed it (${fills.length} fills, ${landings.length} landings)` });
    }
    if (finalState === undefined) {
      const open = input.openSet.has(trail.actionId);
      const since = trail.acceptedAtMs ?? trail.decidedAtMs ?? input.auditAtMs;
      if (!open) lost.push({ actionId: trail.actionId, why: `accepted, never final, not in actions:open (record: ${record?.state ?? 'missing'}; states: ${trail.states.join(' → ')})` });
      else if (input.auditAtMs - since > input.stuckAfterMs) stuck.push({ actionId: trail.actionId, why: `open for ${Math.round((input.auditAtMs - since) / 1000)} s in state ${record?.state ?? trail.states.at(-1) ?? '?'}` });
      else stillOpenYoung++;
    }
  }

  // A guarded position liquidated while an action on it had been accepted (for long enough that a
  // healthy path would have executed it) and was not yet final. An outage overlapping the wait
  // makes it unpreventable by stratd; those are listed apart.
  const preventableLiquidations: Finding[] = [];
  const liquidatedDuringOutage: Finding[] = [];
  const liquidationTrades = input.trades.filter((t) => t.orderType === 'Liquidation' && t.owner === input.wallet);
  for (const trade of liquidationTrades) {
    for (const trail of tail.actions.values()) {
      const acceptedAtMs = trail.acceptedAtMs;
      if (acceptedAtMs === undefined || acceptedAtMs > trade.createdMs) continue;
      if (trail.finalAtMs !== undefined && trail.finalAtMs <= trade.createdMs) continue;
      if (positionOf(trail, watch) !== trade.positionPubkey) continue;
      const waitedMs = trade.createdMs - acceptedAtMs;
      if (waitedMs < input.preventableAfterMs) continue;
      const during = input.incidents.filter((i) => i.fromMs <= trade.createdMs && i.toMs >= acceptedAtMs).map((i) => i.what);
      const finding = {
        actionId: trail.actionId,
        why: `position ${trade.positionPubkey.slice(0, 8)} liquidated ${(waitedMs / 1000).toFixed(1)} s after the action was accepted, while ${stateAt(trail, trade.createdMs) ?? 'accepted'}${during.length ? ` (during: ${during.join('; ')})` : ''}`,
      };
      (during.length ? liquidatedDuringOutage : preventableLiquidations).push(finding);
    }
  }

  // Doubled opens by the venue's word: every increase request the venue executed for the wallet must
  // be the one transaction of one opening action. One whose transaction no action of ours signed (a
  // second signing of an open), or two executed for one action, is an open landed twice.
  const openingSignatures = new Set<string>();
  for (const trail of tail.actions.values()) {
    if (trail.intentType === undefined || !OPENING_INTENTS.has(trail.intentType)) continue;
    for (const sig of trail.signatures) openingSignatures.add(sig);
    const recorded = watch.records.get(trail.actionId)?.signature;
    if (recorded) openingSignatures.add(recorded);
  }
  const walletOf = new Map(input.landed.map((l) => [l.signature, l.request?.wallet]));
  const venueOpens = input.outcomes.filter((o) => o.kind === 'perps.increase' && o.status === 'executed' && walletOf.get(o.signature) === input.wallet);
  for (const o of venueOpens) {
    if (!openingSignatures.has(o.signature)) landedTwice.push({ actionId: `venue:${o.requestPubkey.slice(0, 10)}`, why: `the venue executed an increase (signature ${o.signature.slice(0, 10)}) that no opening action of the ledger signed` });
  }
  const openingActions = [...tail.actions.values()].filter((t) => t.intentType !== undefined && OPENING_INTENTS.has(t.intentType));
  const opens = { decided: openingActions.length, landed: openingActions.filter((t) => t.finalState === 'landed').length, executedOnVenue: venueOpens.length };
  const byType: Record<string, number> = {};
  for (const trail of tail.actions.values()) if (trail.finalState === 'landed') count(byType, trail.intentType ?? 'unknown');

  const walletLandings = input.landed.filter((l) => l.request?.wallet === input.wallet);
  const orphanLandings = walletLandings.filter((l) => (l.err === null || l.err === undefined) && !ourSignatures.has(l.signature)).length;
  const riskEntries: Record<string, number> = {};
  let alerts = 0;
  for (const e of tail.others) {
    if (e.type === 'risk') count(riskEntries, String(e.detail.event ?? e.detail.state ?? e.detail.reason ?? 'risk').slice(0, 50));
    if (e.type === 'alert') alerts++;
  }
  return {
    actions: { decided, accepted, byFinalState, rejectedReasons, landedByType: byType },
    opens,
    landedTwice,
    multiSignature,
    lost,
    stuck,
    unsettled: [...watch.unsettled.values()],
    landedWithoutOwnFill,
    preventableLiquidations,
    liquidatedDuringOutage,
    contradicted,
    decidedNeverAccepted,
    stillOpenYoung,
    liquidations: liquidationTrades.length,
    walletLandings: walletLandings.length,
    orphanLandings,
    riskEntries,
    alerts,
    ledger: { entries: tail.entries, unreadable: tail.unreadable, gaps: tail.gaps },
    memory: input.memory,
    fleet: input.fleet,
    redisRestarts: input.redisRestarts,
    positionsOpened: input.positionsOpened,
    incidents: input.incidents,
    redisKeys: input.redisKeys,
  };
}
