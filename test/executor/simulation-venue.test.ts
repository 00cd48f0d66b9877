// The balance-delta check by simulation, through the executor against the simulated venue: the
// venue builds each transaction, the executor's PolicyInspector simulates it on the venue's
// JSON-RPC (simulateTransaction with the wallet's accounts) before signing. Benign builds pass;
// a build whose simulated effect moves a token out of the wallet (the venue's test fault
// simulatedOutflow: a hidden CPI no decoder sees) is refused; an RPC that cannot simulate holds
// the action (retried while its build is valid, then expired; the breaker never counts it) or, with
// onUnavailable alert, lets it be signed with an alert; a protective decrease waits a bounded time.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MINTS } from '../../src/api/mints.ts';
import type { Logger } from '../../src/kernel/logger.ts';
import { associatedTokenAccountOf } from '../../src/chain/policy/wallet-accounts.ts';
import { PROGRAMS } from '../../src/chain/programs.ts';
import { connectRedis, redisUrlFromEnv } from '../../src/kernel/redis.ts';
import { CircuitBreakers } from '../../src/risk/circuit-breaker.ts';
import { RedisRiskGate } from '../../src/risk/risk-gate.ts';
import { PreparationSlots } from '../../src/pipeline/executor/preparation-slots.ts';
import { PolicyInspector } from '../../src/pipeline/executor/policy-inspector.ts';
import { SimulationCheck, type SimulationOutcome, type SimulationSettings } from '../../src/pipeline/executor/simulation-check.ts';
import type { Intent } from '../../src/sdk/intent.ts';
import { positionView } from '../../src/sdk/position-view.ts';
import { venueMarkPrice } from '../support/venue-mark-price.ts';
import { capturedLogger } from '../support/captured-logger.ts';
import { until, VenueExecutorHarness, type TestWallet } from './venue-harness.ts';

const redis = connectRedis(redisUrlFromEnv());
const PREFIX = `stratd-test:{simulation-venue-${process.pid}}:`;
let h: VenueExecutorHarness;

beforeAll(async () => {
  // Slots of 400 ms (mainnet's): the simulation and the pre-state read beside it share one.
  h = await VenueExecutorHarness.start(redis, PREFIX, { slotMs: 400, decreaseInstantShare: 0, fees: 'charge' });
});
afterAll(async () => {
  await h.stop();
  await redis.quit();
});

const DEFAULTS: SimulationSettings = { enabled: true, onUnavailable: 'refuse', timeoutMs: 2_000, protectiveTimeoutMs: 300 };

/** An executor whose inspector runs the simulation check; it signs nothing (no signer): each action ends `inspected` or `rejected`. */
function checkedExecutor(w: TestWallet, settings: Partial<SimulationSettings> = {}, logger?: Logger) {
  const outcomes: SimulationOutcome[] = [];
  const alerts: string[] = [];
  const simulation = new SimulationCheck(h.chain.simulation, () => ({ ...DEFAULTS, ...settings }), {
    outcome: (outcome) => outcomes.push(outcome),
    signedUnchecked: (detail) => alerts.push(detail),
  });
  return { executor: h.executor(w, { inspector: inspectorFor(w, simulation), signer: undefined, dryRun: true, ...(logger ? { logger } : {}) }), outcomes, alerts };
}

function inspectorFor(w: TestWallet, simulation: SimulationCheck): PolicyInspector {
  return new PolicyInspector({
    wallet: w.signer.publicKey,
    priorityFeeCapLamports: 5_000_000n,
    slippageBps: 100,
    markPrice: venueMarkPrice(h.direct, w.address),
    priceDriftBps: 300,
    readBlockhash: h.chain.blockhashStanding,
    readAccounts: h.chain.readAccounts,
    simulation,
  });
}

async function solLong(w: TestWallet) {
  const view = (await h.positions(w)).map(positionView).find((v) => v?.side === 'long' && v.marketMint === MINTS.SOL);
  if (!view) throw new Error('the funded SOL long is missing');
  return view;
}

let keys = 0;
function decrease(positionPubkey: string): Intent {
  return { type: 'decrease', key: `decrease:${String(++keys)}`, reason: 'trim', notionalUsd: '50000000', positionPubkey, marketMint: MINTS.SOL, side: 'long', receiveToken: 'USDC', sizeUsdDelta: '50000000' };
}

function triggerCreate(): Intent {
  return {
    type: 'trigger-create', key: `trigger:${String(++keys)}`, reason: 'buy SOL low', notionalUsd: '100000000',
    inputMint: MINTS.USDC, outputMint: MINTS.SOL, makingAmount: '100000000', takingAmount: '1000000000',
  };
}

/** Runs `body` while the venue's test fault shows `amount` of USDC leaving the wallet in every simulation. */
async function withSimulatedOutflow(amount: string, body: () => Promise<void>): Promise<void> {
  h.venue.applyFaults({ simulatedOutflow: { mint: MINTS.USDC, amount } });
  try {
    await body();
  } finally {
    h.venue.applyFaults({ simulatedOutflow: null });
  }
}

const STRATEGY = 'venue-test';
const breakers = new CircuitBreakers(redis, PREFIX);

/** The risk gate as the daemon wires it, its breaker tripping on the first counted rejection. */
function breakerGate(): RedisRiskGate {
  return new RedisRiskGate({
    redis,
    prefix: PREFIX,
    limits: { maxNotionalPerActionUsd: 10_000_000_000n, maxActionsPerStrategyPerHour: 1_000, maxNotionalPerHourUsd: 100_000_000_000n, dailyLossStopUsd: 100_000_000_000n, circuitBreakerRejections: 1 },
    breaker: { autoResetMs: 0, protectiveStrategies: [] },
    ledger: h.ledger,
  });
}

/** An executor that signs and sends, its inspector simulating as checkedExecutor's does. */
function signingExecutor(w: TestWallet, risk: RedisRiskGate) {
  const outcomes: SimulationOutcome[] = [];
  const simulation = new SimulationCheck(h.chain.simulation, () => DEFAULTS, { outcome: (outcome) => outcomes.push(outcome), signedUnchecked: () => undefined });
  return { executor: h.executor(w, { inspector: inspectorFor(w, simulation), risk }), outcomes };
}

async function run(executor: ReturnType<typeof checkedExecutor>['executor'], intent: Intent) {
  const job = h.job(intent);
  await executor.accept(job);
  return executor.drive(job.actionId, h.signal);
}

describe('the simulation check before signing', () => {
  it('passes a benign decrease, TP/SL create and trigger order create', async () => {
    const w = await h.fundedWallet();
    const { executor, outcomes } = checkedExecutor(w);
    const position = await solLong(w);
    expect(await run(executor, decrease(position.positionPubkey))).toMatchObject({ state: 'inspected' });
    const tpsl: Intent = {
      type: 'tpsl-create', key: `tpsl:${String(++keys)}`, reason: 'stop', notionalUsd: '0', positionPubkey: position.positionPubkey,
      marketMint: MINTS.SOL, side: 'long', requestType: 'sl', triggerPrice: String(position.liquidationPriceUsd! + 5_000_000n), receiveToken: 'USDC',
    };
    expect(await run(executor, tpsl)).toMatchObject({ state: 'inspected' });
    expect(await run(executor, triggerCreate())).toMatchObject({ state: 'inspected' });
    expect(outcomes).toEqual(['passed', 'passed', 'passed']);
  });

  it('refuses a decrease whose simulated effect moves USDC out of the wallet (simulation_delta, naming the account)', async () => {
    const w = await h.fundedWallet();
    const { executor, outcomes } = checkedExecutor(w);
    const position = await solLong(w);
    await withSimulatedOutflow('5000000', async () => {
      const final = await run(executor, decrease(position.positionPubkey));
      expect(final).toMatchObject({ state: 'rejected', reason: 'policy:simulation_delta' });
      expect(final?.detail).toContain(associatedTokenAccountOf(w.address, MINTS.USDC, PROGRAMS.token));
      expect(final?.detail).toContain('5000000 would leave the wallet');
      expect(outcomes).toEqual(['refused']);
    });
  });

  it('refuses a trigger order whose simulation escrows more than its making amount', async () => {
    const w = await h.fundedWallet();
    const { executor } = checkedExecutor(w);
    await withSimulatedOutflow('1', async () => {
      const final = await run(executor, triggerCreate());
      expect(final).toMatchObject({ state: 'rejected', reason: 'policy:simulation_delta' });
      expect(final?.detail).toContain('escrows exactly 100000000');
    });
  });

  it('a simulation that says the transaction would fail is refused (simulation_failed)', async () => {
    const w = await h.fundedWallet();
    const { executor } = checkedExecutor(w);
    // More USDC than the wallet holds leaves in the simulation: the chain says insufficient funds.
    await withSimulatedOutflow('99000000000', async () => {
      const final = await run(executor, decrease((await solLong(w)).positionPubkey));
      expect(final).toMatchObject({ state: 'rejected', reason: 'policy:simulation_failed' });
      expect(final?.detail).toContain('InstructionError');
    });
  });

  it('RPC down: the decrease is held at built, not rejected, and lands once the RPC simulates again; the breaker never trips', async () => {
    const w = await h.fundedWallet();
    const position = await solLong(w);
    const risk = breakerGate();
    const { executor, outcomes } = signingExecutor(w, risk);
    const job = h.job(decrease(position.positionPubkey));
    await executor.accept(job);
    h.venue.applyFaults({ rpc: { methods: { simulateTransaction: { errorRate: 1 } } } });
    let final;
    try {
      const driving = executor.drive(job.actionId, h.signal);
      // Asked again and again (with backoff) while held: never a rejection, nothing signed.
      await until('three held inspections', () => outcomes.filter((o) => o === 'unavailable_held').length >= 3);
      expect((await h.store.load(job.actionId))?.record).toMatchObject({ state: 'built', simulationUnavailableSinceMs: expect.any(Number) });
      expect(w.signatures()).toBe(0);
      h.venue.applyFaults({ rpc: { methods: { simulateTransaction: null } } });
      final = await driving;
    } finally {
      h.venue.applyFaults({ rpc: { methods: { simulateTransaction: null } } });
    }
    expect(final).toMatchObject({ state: 'landed' });
    expect(outcomes.at(-1)).toBe('passed');
    expect(await breakers.active(STRATEGY, Date.now())).toBeUndefined();
  });

  it('RPC down past the build\'s validity: the action ends expired (simulation_unavailable), never signed unchecked, the breaker never trips', async () => {
    const w = await h.fundedWallet();
    const position = await solLong(w);
    const { executor, outcomes } = signingExecutor(w, breakerGate());
    const job = h.job(decrease(position.positionPubkey));
    await executor.accept(job);
    h.venue.applyFaults({ rpc: { methods: { simulateTransaction: { errorRate: 1 } } } });
    try {
      const driving = executor.drive(job.actionId, h.signal);
      await until('a held inspection', () => outcomes.includes('unavailable_held'));
      // The chain moves past the build's lastValidBlockHeight (150 blocks of 400 ms) while the RPC still cannot simulate.
      h.venue.advance(150 * 400 + 4_000);
      const final = await driving;
      expect(final).toMatchObject({ state: 'expired', reason: 'simulation_unavailable' });
      expect(final?.detail).toContain('nothing signed');
      expect(final?.signature).toBeUndefined();
      expect(w.signatures()).toBe(0);
      expect(h.outcomesOf(job.actionId)).toEqual(['expired']);
      expect(await breakers.active(STRATEGY, Date.now())).toBeUndefined();
    } finally {
      h.venue.applyFaults({ rpc: { methods: { simulateTransaction: null } } });
    }
  });

  it('a held action gives its preparation slot to the next one meanwhile', async () => {
    const w = await h.fundedWallet();
    const position = await solLong(w);
    const outcomes: SimulationOutcome[] = [];
    const simulation = new SimulationCheck(h.chain.simulation, () => DEFAULTS, { outcome: (outcome) => outcomes.push(outcome), signedUnchecked: () => undefined });
    // One slot for the whole executor: the second action prepares only if the held first one lets go of it.
    const executor = h.executor(w, { inspector: inspectorFor(w, simulation), signer: undefined, dryRun: true, preparation: new PreparationSlots(1) });
    const [first, second] = [h.job(decrease(position.positionPubkey)), h.job(triggerCreate())];
    h.venue.applyFaults({ rpc: { methods: { simulateTransaction: { errorRate: 1 } } } });
    try {
      await executor.accept(first);
      const drivingFirst = executor.drive(first.actionId, h.signal);
      await until('the first action held', async () => (await h.store.load(first.actionId))?.record.simulationUnavailableSinceMs !== undefined);
      await executor.accept(second);
      const drivingSecond = executor.drive(second.actionId, h.signal);
      await until('the second action built and held too', async () => (await h.store.load(second.actionId))?.record.simulationUnavailableSinceMs !== undefined);
      h.venue.applyFaults({ rpc: { methods: { simulateTransaction: null } } });
      expect(await drivingFirst).toMatchObject({ state: 'inspected' });
      expect(await drivingSecond).toMatchObject({ state: 'inspected' });
    } finally {
      h.venue.applyFaults({ rpc: { methods: { simulateTransaction: null } } });
    }
  });

  it('onUnavailable alert: signed without the check, with an alert', async () => {
    const w = await h.fundedWallet();
    const position = await solLong(w);
    h.venue.applyFaults({ rpc: { methods: { simulateTransaction: { errorRate: 1 } } } });
    try {
      const alerting = checkedExecutor(w, { onUnavailable: 'alert' });
      expect(await run(alerting.executor, decrease(position.positionPubkey))).toMatchObject({ state: 'inspected' });
      expect(alerting.outcomes).toEqual(['unavailable_signed']);
      expect(alerting.alerts).toEqual([expect.stringContaining('could not simulate')]);
    } finally {
      h.venue.applyFaults({ rpc: { methods: { simulateTransaction: null } } });
    }
  });

  it('a slow simulation: a protective decrease waits only protectiveTimeoutMs per attempt, is held, and passes once the node answers', async () => {
    const w = await h.fundedWallet();
    const position = await solLong(w);
    h.venue.applyFaults({ rpc: { methods: { simulateTransaction: { latencyMs: 5_000 } } } });
    try {
      // The non-protective bound is far longer than the node's delay: only the protective one can end an attempt.
      const { lines, logger } = capturedLogger('info');
      const { executor, outcomes } = checkedExecutor(w, { protectiveTimeoutMs: 100, timeoutMs: 60_000 }, logger);
      const job = h.job(decrease(position.positionPubkey));
      await executor.accept(job);
      const driving = executor.drive(job.actionId, h.signal);
      const endedByTheBound = () => lines.filter((l) => l.includes('held, not signed') && l.includes('no answer within 100 ms')).length;
      await until('two attempts ended by the protective bound', () => endedByTheBound() >= 2);
      expect(outcomes.filter((o) => o === 'unavailable_held').length).toBeGreaterThanOrEqual(2);
      h.venue.applyFaults({ rpc: { methods: { simulateTransaction: null } } });
      expect(await driving).toMatchObject({ state: 'inspected' });
      expect(outcomes.at(-1)).toBe('passed');
    } finally {
      h.venue.applyFaults({ rpc: { methods: { simulateTransaction: null } } });
    }
  });
});
