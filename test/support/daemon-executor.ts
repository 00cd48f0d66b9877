import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Keypair } from '@solana/web3.js';
import { ApiClient } from '../../src/api/client.ts';
import { LocalKeypairSigner, writeKeyFile } from '../../src/chain/signer.ts';
import { loadConfig, type Config } from '../../src/config/index.ts';
import { assembleExecutor } from '../../src/daemon/executor-role.ts';
import { silentLogger, type Logger } from '../../src/kernel/logger.ts';
import type { NotifySink } from '../../src/kernel/notify-event.ts';
import { Watchdog } from '../../src/kernel/watchdog.ts';
import type { Executor } from '../../src/pipeline/executor/executor.ts';
import { Metrics } from '../../src/pipeline/metrics.ts';
import { Ledger } from '../../src/records/ledger.ts';
import type { Venue } from '../../src/venue/venue.ts';
import type { RedisScope } from './redis-scope.ts';

/** The daemon's own executor (assembleExecutor, as `stratd run` composes it) for a paper key file, in a test's Redis scope. */
export async function daemonExecutor(o: { readonly config: Config; readonly scope: RedisScope; readonly client: ApiClient; readonly rpcUrl: string; readonly keyFile: string; readonly metrics: Metrics; readonly logger?: Logger; readonly notifier?: NotifySink }): Promise<Executor> {
  return assembleExecutor({
    config: o.config,
    redis: o.scope.redis,
    prefix: o.scope.prefix,
    client: o.client,
    rpcUrl: o.rpcUrl,
    signer: await LocalKeypairSigner.fromKeyFile(o.keyFile, { mode: 'paper' }),
    ledger: new Ledger(o.scope.redis, { prefix: o.scope.prefix, maxLen: 1_000 }),
    logger: o.logger ?? silentLogger,
    notifier: o.notifier,
    metrics: o.metrics,
    watchdog: new Watchdog(),
  });
}

/** A paper wallet's executor on a running venue: what `paperExecutor` made, and how to let it go. */
export interface PaperExecutor {
  readonly executor: Executor;
  readonly client: ApiClient;
  readonly config: Config;
  /** The executor's metrics (no process defaults). */
  readonly metrics: Metrics;
  /** The paper wallet (base58); its key file lives in a temporary directory until close. */
  readonly wallet: string;
  close(): Promise<void>;
}

/**
 * The daemon's executor for a fresh paper wallet on `venue` (paper mode, the venue's API and RPC,
 * confirmations polled every 50 ms), in a test's Redis scope. Fund the wallet through the venue.
 */
export async function paperExecutor(venue: Venue, scope: RedisScope): Promise<PaperExecutor> {
  const dir = await mkdtemp(join(tmpdir(), 'stratd-paper-executor-'));
  const keypair = Keypair.generate();
  const keyFile = join(dir, 'wallet.json');
  await writeKeyFile(keyFile, keypair);
  const { config } = loadConfig({
    env: {},
    overrides: { mode: 'paper', 'api.baseUrl': venue.apiUrl, 'rpc.url': venue.rpcUrl, 'redis.url': process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', 'redis.prefix': scope.redisPrefix, 'wallet.paperKeyFile': keyFile, 'execution.confirmPollMs': 50 },
  });
  const client = new ApiClient({ baseUrl: venue.apiUrl, retries: 0 });
  const metrics = new Metrics({ defaults: false });
  const executor = await daemonExecutor({ config, scope, client, rpcUrl: venue.rpcUrl, keyFile, metrics });
  return {
    executor,
    client,
    config,
    metrics,
    wallet: keypair.publicKey.toBase58(),
    close: async () => {
      await client.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

