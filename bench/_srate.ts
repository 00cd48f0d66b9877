import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Keypair } from '@solana/web3.js';
import { ApiClient } from '../src/api/client.ts';
import { writeKeyFile } from '../src/chain/signer.ts';
import { loadConfig } from '../src/config/index.ts';
import { silentLogger } from '../src/ops/logger.ts';
import { keyPrefix } from '../src/pipeline/queues.ts';
import { connectRedis } from '../src/pipeline/redis.ts';
import { loadStrategiesOrThrow } from '../src/pipeline/strategy-runtime/loader.ts';
import { startVenue } from '../src/venue/venue.ts';
import { ALL_POSITIONS, fundWallet } from './daemon-venue.ts';
import { strategyRate } from './strategy-rate.ts';

const venue = await startVenue({ seed: 7, logger: silentLogger });
const dir = await mkdtemp(join(tmpdir(), 'srate-'));
const kp = Keypair.generate();
const keyFile = join(dir, 'k.json');
await writeKeyFile(keyFile, kp);
const address = kp.publicKey.toBase58();
await fundWallet(venue.apiUrl, address, ALL_POSITIONS, true, '30');
const redis = connectRedis('redis://127.0.0.1:6379');
const prefix = `srate-${process.pid}`;
const { config } = loadConfig({ env: {}, overrides: { mode: 'paper', 'api.baseUrl': venue.apiUrl, 'rpc.url': venue.rpcUrl, 'redis.prefix': prefix, 'wallet.paperKeyFile': keyFile, 'venue.seedWallet': false } });
const strategies = await loadStrategiesOrThrow({ dir: config.strategies.dir, enabled: config.strategies.enabled, settings: config.strategies.settings });
const client = new ApiClient({ baseUrl: venue.apiUrl, retries: 0 });
const positions = (await client.call('perps.positions', { walletAddress: address })).dataList;
for (let i = 0; i < Number(process.env.ROUNDS ?? 2); i++) {
  const rate = await strategyRate({ config, redis, prefix: keyPrefix(prefix), strategies, logger: silentLogger, wallet: address, positions, seconds: 3 });
  console.log(rate.perSecond.toFixed(0), '/s');
}
const keys = await redis.keys(`${keyPrefix(prefix).replace(/[{}]/g, (c) => `\\${c}`)}*`);
if (keys.length) await redis.del(...keys);
await client.close();
await venue.close();
await redis.quit();
