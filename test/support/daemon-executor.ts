import type { ApiClient } from '../../src/api/client.ts';
import { LocalKeypairSigner } from '../../src/chain/signer.ts';
import type { Config } from '../../src/config/index.ts';
import { assembleExecutor } from '../../src/daemon/executor-role.ts';
import { silentLogger, type Logger } from '../../src/kernel/logger.ts';
import type { NotifySink } from '../../src/kernel/notify-event.ts';
import { Watchdog } from '../../src/kernel/watchdog.ts';
import type { Executor } from '../../src/pipeline/executor/executor.ts';
import type { Metrics } from '../../src/pipeline/metrics.ts';
import { Ledger } from '../../src/records/ledger.ts';
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
