import { checkSimulation, type SimulationBounds, type Violation, type WatchedAccount } from '../../chain/policy/index.ts';
import { SimulationAnswerInvalid, type AccountsAtSlot, type SimulatedAtSlot, type SimulationRpc } from '../../chain/simulate-transaction.ts';
import { withTimeout } from '../../kernel/with-timeout.ts';

/** policy.simulation.* (src/config/sections/trading.ts). */
export interface SimulationSettings {
  readonly enabled: boolean;
  readonly onUnavailable: 'refuse' | 'alert';
  readonly timeoutMs: number;
  readonly protectiveTimeoutMs: number;
}

/** How one check ended: the metric's `outcome` label. */
export type SimulationOutcome = 'passed' | 'refused' | 'invalid' | 'unavailable_held' | 'unavailable_signed';

export interface SimulationObserver {
  /** Every check, with its duration (metrics). */
  outcome(outcome: SimulationOutcome, seconds: number): void;
  /** The RPC could not simulate and the setting says sign anyway: the operator must hear of it. */
  signedUnchecked(detail: string): void;
}

export interface SimulationRequest {
  readonly unsignedTx: Uint8Array;
  readonly wallet: string;
  readonly watched: readonly WatchedAccount[];
  readonly bounds: SimulationBounds;
  /** A decrease or a TP/SL create/update: waits at most protectiveTimeoutMs. */
  readonly protective: boolean;
  /** A simulation and pre-state read begun earlier (SimulationCheck.begin): its answer is the first attempt's if it watched exactly these accounts. */
  readonly begun?: BegunSimulation;
}

/** A simulation and its pre-state read asked before the accounts to watch were known for sure. */
interface BegunSimulation {
  readonly unsignedTx: Uint8Array;
  readonly watched: readonly WatchedAccount[];
  readonly answer: Promise<readonly [SimulatedAtSlot, AccountsAtSlot]>;
}

/**
 * The RPC could not simulate (an error, no answer in time) and policy.simulation.onUnavailable is
 * refuse: no verdict yet, never a violation. An outage says nothing about the transaction, so the
 * executor holds the action at its step and asks again while the build is valid (a rejection would
 * count toward the strategy's circuit breaker and drop a protective decrease); nothing is signed
 * unchecked.
 */
export class SimulationUnavailable extends Error {
  override readonly name = 'SimulationUnavailable';
  readonly kind = 'simulation_unavailable' as const;
}

/** The RPC did not answer in time. */
class SimulationTimeout extends Error {
  override readonly name = 'SimulationTimeout';
  readonly kind = 'timeout' as const;
}

/** Pre-state and post-state must be of one slot: a landing between them would blur the delta. */
const SLOT_ATTEMPTS = 2;
/**
 * A delta beyond the bound is asked again before it is a refusal: another transaction of the wallet
 * landing between the pre-state read and the simulation (several actions of one wallet in flight)
 * shows as a delta this transaction does not make, and would refuse a protective decrease for
 * nothing. A transaction that really moves too much shows it on every attempt.
 */
const DELTA_ATTEMPTS = 3;

/**
 * The balance-delta check by simulation (docs/safety.md, "Simulation (balance-delta check)"):
 * simulates the unsigned transaction with the wallet's accounts, reads the same accounts beside it
 * at the same slot, and compares (src/chain/policy/check-simulation.ts). An RPC that cannot answer
 * within the bound is `simulation_unavailable`: no verdict yet (SimulationUnavailable, thrown), or
 * signed with an alert, as configured.
 */
export class SimulationCheck {
  constructor(
    private readonly rpc: SimulationRpc,
    private readonly settings: () => SimulationSettings,
    private readonly observer?: SimulationObserver,
  ) {}

  get enabled(): boolean {
    return this.settings().enabled;
  }

  /**
   * Asks the RPC for the simulation and the pre-state read now, beside the policy's other reads,
   * with the accounts it would watch before knowing the chain facts: in the common case those are
   * the accounts `check` watches exactly, and the check then takes this answer instead of asking
   * again, one round trip later. Nothing is judged here; an answer nobody takes is dropped.
   */
  begin(unsignedTx: Uint8Array, watched: readonly WatchedAccount[]): BegunSimulation {
    const addresses = watched.map((w) => w.address);
    const answer = Promise.all([this.rpc.simulate(unsignedTx, addresses), this.rpc.accounts(addresses)] as const);
    // Judged only by a check that takes it; a failure nobody takes is no unhandled rejection.
    answer.catch(() => undefined);
    return { unsignedTx, watched, answer };
  }

  async check(request: SimulationRequest): Promise<Violation[]> {
    const settings = this.settings();
    const started = performance.now();
    const waitMs = request.protective ? settings.protectiveTimeoutMs : settings.timeoutMs;
    const done = (outcome: SimulationOutcome, violations: Violation[]): Violation[] => {
      this.observer?.outcome(outcome, (performance.now() - started) / 1000);
      return violations;
    };
    try {
      const violations = await withTimeout(this.compare(request), waitMs, () => {
        throw new SimulationTimeout(`no answer within ${String(waitMs)} ms`);
      });
      return done(violations.length === 0 ? 'passed' : violations.some((v) => v.rule === 'simulation_invalid') ? 'invalid' : 'refused', violations);
    } catch (error) {
      if (error instanceof SimulationAnswerInvalid) return done('invalid', [{ rule: 'simulation_invalid', detail: error.message }]);
      const detail = `the RPC could not simulate the transaction: ${error instanceof Error ? error.message : String(error)}`;
      if (settings.onUnavailable === 'alert') {
        this.observer?.signedUnchecked(detail);
        return done('unavailable_signed', []);
      }
      done('unavailable_held', []);
      throw new SimulationUnavailable(`${detail} (policy.simulation.onUnavailable is refuse: held, not signed)`);
    }
  }

  private async compare(request: SimulationRequest): Promise<Violation[]> {
    for (let attempt = 1; ; attempt++) {
      const violations = await this.compareOnce(request, attempt === 1 ? takenAnswer(request) : undefined);
      const raced = violations.length > 0 && violations.every((v) => v.rule === 'simulation_delta');
      if (!raced || attempt >= DELTA_ATTEMPTS) return violations;
    }
  }

  private async compareOnce(request: SimulationRequest, begun?: BegunSimulation['answer']): Promise<Violation[]> {
    const addresses = request.watched.map((w) => w.address);
    for (let attempt = 1; ; attempt++) {
      const [simulated, pre] = attempt === 1 && begun ? await begun : await Promise.all([this.rpc.simulate(request.unsignedTx, addresses), this.rpc.accounts(addresses)]);
      if (simulated.report.err !== null && simulated.report.err !== undefined) {
        return checkSimulation(request.wallet, request.watched, pre.accounts, simulated.report, request.bounds);
      }
      if (simulated.slot === pre.slot) return checkSimulation(request.wallet, request.watched, pre.accounts, simulated.report, request.bounds);
      if (attempt >= SLOT_ATTEMPTS) {
        throw new Error(`the simulation (slot ${String(simulated.slot)}) and the pre-state read (slot ${String(pre.slot)}) answered from different slots ${String(SLOT_ATTEMPTS)} times`);
      }
    }
  }
}

/** The begun answer when it is of these bytes and watched exactly these accounts, in this order. */
function takenAnswer(request: SimulationRequest): BegunSimulation['answer'] | undefined {
  const begun = request.begun;
  if (!begun || begun.watched.length !== request.watched.length) return undefined;
  if (Buffer.compare(begun.unsignedTx, request.unsignedTx) !== 0) return undefined;
  const same = request.watched.every((w, i) => {
    const b = begun.watched[i]!;
    return b.address === w.address && b.kind === w.kind && (b.kind === 'wallet' || (w.kind === 'token' && b.mint === w.mint));
  });
  return same ? begun.answer : undefined;
}
