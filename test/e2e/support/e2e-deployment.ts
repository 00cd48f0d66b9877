import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Keypair } from '@solana/web3.js';
import type { Redis } from 'ioredis';
import { writeKeyFile } from '../../../src/chain/signer.ts';
import type { ActionRecord } from '../../../src/records/action-record.ts';
import { ActionStore } from '../../../src/pipeline/executor/action-store.ts';
import { Ledger, type LedgerRecord } from '../../../src/records/ledger.ts';
import { keyPrefix } from '../../../src/pipeline/queues.ts';
import { connectRedis, redisUrlFromEnv } from '../../../src/kernel/redis.ts';

let serial = 0;

/**
 * One deployment of stratd as an end-to-end test sees it: its own redis.prefix (so tests
 * sharing the real Redis never meet), a paper wallet key file made here (so the test knows
 * the public key), and read access to what the daemon writes — the ledger and the action
 * records. `clean()` deletes this deployment's keys and files only.
 */
export class E2eDeployment {
  readonly redisPrefix: string;
  /** The hash-tagged key prefix the daemon writes under, "{stratd-test-e2e-...}:". */
  readonly prefix: string;
  readonly redis: Redis;
  readonly wallet = Keypair.generate();
  private dir = '';

  private constructor(name: string) {
    this.redisPrefix = `stratd-test-e2e-${name}-${process.pid}-${++serial}`;
    this.prefix = keyPrefix(this.redisPrefix);
    this.redis = connectRedis(redisUrlFromEnv());
  }

  static async create(name: string): Promise<E2eDeployment> {
    const deployment = new E2eDeployment(name);
    deployment.dir = await mkdtemp(join(tmpdir(), `stratd-e2e-${name}-`));
    await writeKeyFile(deployment.keyFile, deployment.wallet);
    return deployment;
  }

  get walletAddress(): string {
    return this.wallet.publicKey.toBase58();
  }

  get keyFile(): string {
    return join(this.dir, 'paper-wallet.json');
  }

  /**
   * `--set` flags: this deployment's prefix and wallet, any free port for the ops server
   * (other tests run daemons on this machine at the same time), then `extra` (objects as JSON).
   */
  sets(extra: Record<string, string | number | boolean | object> = {}): string[] {
    const all: Record<string, string | number | boolean | object> = {
      'redis.prefix': this.redisPrefix,
      'wallet.paperKeyFile': this.keyFile,
      'ops.port': 0,
      ...extra,
    };
    return Object.entries(all).map(([key, value]) => `${key}=${typeof value === 'object' ? JSON.stringify(value) : String(value)}`);
  }

  /**
   * A daemon against a venue running in the test process, polling positions and pool info
   * every second, with the guard acting once per position (a long cooldown), so each test
   * knows which action to look for.
   */
  static againstVenue(venue: { apiUrl: string; rpcUrl: string }): Record<string, string | number | object> {
    return {
      ...E2eDeployment.externalVenue(venue),
      'pollers.positions.cron': '* * * * * *',
      'pollers.poolInfo.cron': '* * * * * *',
      'pollers.collateralLimits.cron': '* * * * * *',
      'execution.confirmPollMs': 200,
      // The guard alone (config/default.json also enables tpsl-coverage): tests count its actions.
      'strategies.enabled': 'liquidation-guard',
      'strategies.settings.liquidation-guard': { cooldownMs: 600_000 },
    };
  }

  /** Flags that point the daemon at a venue running in the test process. */
  static externalVenue(venue: { apiUrl: string; rpcUrl: string }): Record<string, string> {
    return { 'api.baseUrl': venue.apiUrl, 'rpc.url': venue.rpcUrl };
  }

  /** The whole ledger, oldest first. */
  ledger(): Promise<LedgerRecord[]> {
    return new Ledger(this.redis, { prefix: this.prefix, maxLen: 100_000 }).read({ limit: 10_000, reverse: false });
  }

  async record(actionId: string): Promise<ActionRecord | undefined> {
    return (await new ActionStore(this.redis, this.prefix).load(actionId))?.record;
  }

  /** Unsettled actions (what the executors' sweepers still drive). */
  openActionIds(): Promise<string[]> {
    return new ActionStore(this.redis, this.prefix).openActionIds();
  }

  /** Ids of every action decided (the `decision` entry the intent claim writes), stored or not, from the ledger, in order. */
  async decidedActionIds(): Promise<string[]> {
    const ids = (await this.ledger()).filter((e) => e.type === 'decision').map((e) => e.actionId!);
    return [...new Set(ids)];
  }

  /** Ids of every action the executor accepted, from the ledger, in order. */
  async actionIds(): Promise<string[]> {
    const ids = (await this.ledger()).filter((e) => e.type === 'action_state' && e.state === 'accepted').map((e) => e.actionId!);
    return [...new Set(ids)];
  }

  /** Deletes every key under this deployment's prefix (BullMQ's included) and the temp files. */
  async clean(): Promise<void> {
    const pattern = `${this.prefix.replace(/[{}[\]*?\\]/g, (c) => `\\${c}`)}*`;
    let cursor = '0';
    do {
      const [next, keys] = await this.redis.scan(cursor, 'MATCH', pattern, 'COUNT', 500);
      cursor = next;
      if (keys.length > 0) await this.redis.del(...keys);
    } while (cursor !== '0');
    if (this.dir) await rm(this.dir, { recursive: true, force: true });
  }

  async close(): Promise<void> {
    await this.clean();
    await this.redis.quit();
  }
}
