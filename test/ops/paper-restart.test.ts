import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig, type Config } from '../../src/config/index.ts';
import { paperStatePath } from '../../src/paper/state-file.ts';
import { startDaemon, type Daemon } from '../../src/daemon/daemon.ts';
import { silentLogger } from '../../src/kernel/logger.ts';
import { redisScope } from '../support/redis-scope.ts';

const scope = redisScope(`paper-restart-${process.pid}`);
const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
let root: string;
let varDir: string;
let config: Config;

beforeAll(async () => {
  await scope.clean();
  // <root>/var, as ./var is for a daemon started in <root>, so the CLI run there finds it.
  root = await mkdtemp(join(tmpdir(), 'stratd-paper-'));
  varDir = join(root, 'var');
  ({ config } = loadConfig({
    env: {},
    overrides: {
      'redis.url': redisUrl,
      'redis.prefix': scope.redisPrefix,
      'wallet.paperKeyFile': join(varDir, 'paper-wallet.json'),
      'venue.port': 0,
      'venue.rpcPort': 0,
      'ops.port': 0,
      'log.level': 'silent',
      'pollers.rankedTokens.enabled': false,
      'pollers.newTokens.enabled': false,
      'pollers.collateralLimits.enabled': false,
      'pollers.limitOrders.enabled': false,
      'pollers.trades.enabled': false,
    },
  }));
});

afterAll(async () => {
  await scope.clean();
  await scope.close();
  await rm(root, { recursive: true, force: true });
});

/** The paper wallet on the daemon's venue: balances and open positions, as exact strings. */
function walletView(daemon: Daemon) {
  const venue = daemon.venue!;
  return {
    lamports: venue.chain.getBalance(daemon.wallet).toString(),
    tokens: Object.fromEntries([...venue.chain.tokenBalances(daemon.wallet)].map(([m, a]) => [m, a.toString()])),
    positions: venue.market.perps
      .positionsOf(daemon.wallet, false)
      .map((p) => ({ pubkey: p.pubkey, side: p.side, sizeUsd: p.sizeUsd.toString(), collateralUsd: p.collateralUsd.toString(), entryPrice: p.entryPrice.toString() }))
      .sort((a, b) => a.pubkey.localeCompare(b.pubkey)),
  };
}

// Only the pollers run: nothing trades between the two starts, so the state must match exactly.
const start = () => startDaemon({ config, roles: ['pollers'], logger: silentLogger, env: { REDIS_URL: redisUrl }, varDir });

describe('paper mode across a restart', () => {
  it('resumes the same balances and positions and does not fund the wallet a second time', async () => {
    const first = await start();
    expect(walletView(first).lamports).toBe('10000000000');
    // Paper trading moved things on: one more SOL, and the ETH long closed. A fresh venue funded
    // again would show 10 SOL and three positions; funded on top of the saved state, 21 SOL.
    first.venue!.chain.credit(first.wallet, 1_000_000_000n);
    const eth = first.venue!.market.perps.positionsOf(first.wallet, false).find((p) => p.market.symbol === 'ETH')!;
    eth.sizeUsd = 0n;
    eth.collateralUsd = 0n;
    const before = walletView(first);
    expect(before.positions).toHaveLength(2);
    expect(before.lamports).toBe('11000000000');
    const lastSlot = first.venue!.chain.slot();
    await first.stop();
    const saved = JSON.parse(await readFile(paperStatePath(join(varDir, 'paper-wallet.json')), 'utf8')) as { version: number; wallet: string };
    expect(saved).toMatchObject({ version: 2, wallet: first.wallet });

    const second = await start();
    try {
      expect(second.wallet).toBe(first.wallet);
      expect(walletView(second)).toEqual(before);
      // The chain goes on past the saved session: no blockhash of it is handed out again.
      expect(second.venue!.chain.slot()).toBeGreaterThan(lastSlot);
    } finally {
      await second.stop();
    }
  }, 60_000);

  it('stratd paper reset deletes the venue state and keeps the wallet; the next start funds it afresh', async () => {
    const reset = spawnSync(process.execPath, [resolve('bin/stratd.js'), 'paper', 'reset'], { cwd: root, encoding: 'utf8', env: { ...process.env } });
    expect(reset.status, reset.stderr).toBe(0);
    expect(reset.stdout).toContain('paper state deleted');
    expect(existsSync(paperStatePath(join(varDir, 'paper-wallet.json')))).toBe(false);
    expect(existsSync(join(varDir, 'paper-wallet.json'))).toBe(true);
    const again = await start();
    try {
      const view = walletView(again);
      expect(view.lamports).toBe('10000000000');
      expect(view.positions).toHaveLength(3);
    } finally {
      await again.stop();
    }
  }, 60_000);

  it('reads a version 1 paper state of an earlier release (balances, positions, prices) and writes version 2', async () => {
    const path = paperStatePath(join(varDir, 'paper-wallet.json'));
    const { wallet } = JSON.parse(await readFile(path, 'utf8')) as { wallet: string };
    const v1 = { version: 1, savedAtMs: Date.now(), wallet, lamports: '7000000000', tokens: {}, positions: [], prices: { SOL: '140000000', ETH: '3000000000', BTC: '60000000000' } };
    await writeFile(path, JSON.stringify(v1));
    const resumed = await start();
    try {
      const view = walletView(resumed);
      expect(view.lamports).toBe('7000000000');
      expect(view.positions).toHaveLength(0);
    } finally {
      await resumed.stop();
    }
    expect(JSON.parse(await readFile(path, 'utf8'))).toMatchObject({ version: 2, wallet });
  }, 60_000);
});
