import type { FastifyInstance, FastifyReply } from 'fastify';
import { z } from 'zod';
import { decimalString, uintString, decimalToScaled, toBigInt } from '../../api/amounts.ts';
import { fieldIssues } from '../../api/issues.ts';
import { MINTS } from '../../api/mints.ts';
import { pubkey } from '../../api/pubkey.ts';
import { marketBySymbol, type MarketSymbol } from '../market/assets.ts';
import { MarketError } from '../market/errors.ts';
import { positionJson, limitOrderJson, tradeJson } from '../market/perps-views.ts';
import { seedPosition } from '../market/seeding.ts';
import { faultPatchSchema, type FaultPatch } from './faults.ts';
import { landedJson, plain, stateJson } from './control-state.ts';
import type { VenueServices } from './services.ts';

const symbol = z.enum(['SOL', 'ETH', 'BTC']);
const side = z.enum(['long', 'short']);

const fundSchema = z.strictObject({
  wallet: pubkey,
  /** Lamports. */
  sol: uintString.optional(),
  /** USDC smallest units (6 decimals). */
  usdc: uintString.optional(),
  /** Any other mint → smallest units. */
  tokens: z.record(pubkey, uintString).optional(),
  /** One open position per entry (at most one per market and side). */
  positions: z
    .array(
      z.strictObject({
        market: symbol,
        side,
        /** Collateral, USD x 10^6 (default 100 USD). */
        collateralUsd: uintString.optional(),
        /** Leverage ("5", "12.5"), or ... */
        leverage: decimalString.optional(),
        /** ... the distance from the mark to the liquidation price, in percent ("10"). */
        liquidationDistancePct: decimalString.optional(),
      }),
    )
    .optional(),
  /** Create a studio DBC pool owned by the wallet with this much unclaimed fee (USDC units). */
  dbcPoolUnclaimed: uintString.optional(),
});

const priceSchema = z.strictObject({ market: symbol, price: decimalString.optional(), priceUsd: uintString.optional() }).refine((p) => (p.price === undefined) !== (p.priceUsd === undefined), {
  message: 'give exactly one of price (decimal USD) and priceUsd (USD x 10^6)',
});
const advanceSchema = z.strictObject({ ms: z.number().int().min(0).max(31 * 86_400_000) });
const limitOrderSchema = z
  .strictObject({
    wallet: pubkey,
    market: symbol,
    side,
    inputMint: pubkey,
    inputAmount: uintString,
    triggerPrice: uintString,
    leverage: decimalString.optional(),
    sizeUsdDelta: uintString.optional(),
  })
  .refine((o) => (o.leverage === undefined) !== (o.sizeUsdDelta === undefined), { message: 'give exactly one of leverage and sizeUsdDelta' });
const cancelLimitSchema = z.strictObject({ requestPubkey: pubkey });

function parse<T extends z.ZodType>(schema: T, body: unknown, reply: FastifyReply): z.output<T> | undefined {
  const parsed = schema.safeParse(body ?? {});
  if (parsed.success) return parsed.data;
  void reply.status(400).send({ error: 'invalid control request', issues: fieldIssues(parsed.error) });
  return undefined;
}

function fail(reply: FastifyReply, error: unknown): FastifyReply {
  if (error instanceof MarketError) return reply.status(error.kind === 'business' ? 422 : 400).send({ error: error.message, code: error.code });
  throw error;
}

/** Applies a fault patch to the running venue. */
export function applyFaultPatch(services: VenueServices, patch: FaultPatch): void {
  const { settings, market, chain } = services;
  for (const [id, faults] of Object.entries(patch.operations ?? {})) services.faults.set(id, faults);
  for (const [method, faults] of Object.entries(patch.rpc?.methods ?? {})) services.rpcFaults.setMethod(method, faults);
  if (patch.rpc?.frozen !== undefined) services.rpcFaults.setFrozen(chain, patch.rpc.frozen);
  if (patch.dropRate !== undefined) chain.setDropRate(patch.dropRate);
  if (patch.dropAll !== undefined) chain.setDropAll(patch.dropAll);
  if (patch.simulatedOutflow !== undefined) chain.setSimulatedOutflow(patch.simulatedOutflow && { mint: patch.simulatedOutflow.mint, amount: BigInt(patch.simulatedOutflow.amount) });
  if (patch.keeperDelayMs !== undefined) market.settings.keeperDelayMs = patch.keeperDelayMs;
  if (patch.maxRequestExecutionSec !== undefined) market.settings.maxRequestExecutionSec = patch.maxRequestExecutionSec;
  if (patch.decreaseInstantShare !== undefined) settings.decreaseInstantShare = patch.decreaseInstantShare;
  if (patch.rateLimit) {
    settings.rateLimit = { ...settings.rateLimit, ...patch.rateLimit, keyTiers: { ...settings.rateLimit.keyTiers, ...patch.rateLimit.keyTiers } };
    services.limiter.reset();
  }
  if (patch.apiKeys !== undefined) settings.apiKeys = patch.apiKeys;
  if (patch.requireApiKey !== undefined) settings.requireApiKey = patch.requireApiKey;
  if (patch.forbidden !== undefined) settings.forbidden = new Set(patch.forbidden);
}

function balancesOf(services: VenueServices, wallet: string) {
  const tokens = Object.fromEntries([...services.chain.tokenBalances(wallet)].map(([mint, amount]) => [mint, amount.toString()]));
  return { wallet, lamports: services.chain.getBalance(wallet).toString(), tokens };
}

/** The control API under /__venue/ (docs/venue.md lists every endpoint). */
export function registerControlRoutes(app: FastifyInstance, services: VenueServices): void {
  const sync = () => services.market.advanceTo(services.clock.now());

  app.get('/__venue/state', async () => {
    sync();
    return stateJson(services);
  });

  app.get('/__venue/landed', async () => landedJson(services));

  // Every fill and every keeper outcome with their exact times (the state shows only the latest).
  app.get('/__venue/trades', async () => {
    sync();
    return services.market.trades.all().map((t) => ({ seq: t.seq, createdMs: t.createdMs, ...tradeJson(t) }));
  });

  app.get('/__venue/request-outcomes', async () => {
    sync();
    return services.market.perps.outcomes;
  });

  app.get<{ Params: { wallet: string } }>('/__venue/balances/:wallet', async (request) => balancesOf(services, request.params.wallet));

  app.post('/__venue/fund', async (request, reply) => {
    const body = parse(fundSchema, request.body, reply);
    if (!body) return reply;
    sync();
    const { chain, market } = services;
    if (body.sol) chain.credit(body.wallet, toBigInt(body.sol));
    if (body.usdc) chain.creditToken(body.wallet, MINTS.USDC, toBigInt(body.usdc));
    for (const [mint, amount] of Object.entries(body.tokens ?? {})) market.ledger.credit(body.wallet, mint, toBigInt(amount));
    try {
      const positions = (body.positions ?? []).map((p) => {
        const spec = marketBySymbol(p.market);
        if (!spec) throw new MarketError('invalid_argument', 'invalid_argument', `unknown market ${p.market}`);
        const position = seedPosition(market, {
          owner: body.wallet,
          market: spec,
          side: p.side,
          collateralUsd: p.collateralUsd ? toBigInt(p.collateralUsd) : 100_000_000n,
          leverageBps: p.leverage ? decimalToScaled(p.leverage, 4) : undefined,
          liquidationDistanceBps: p.liquidationDistancePct ? decimalToScaled(p.liquidationDistancePct, 2) : undefined,
        });
        return positionJson(market, position, market.now());
      });
      const pool = body.dbcPoolUnclaimed ? market.studio.create(body.wallet, toBigInt(body.dbcPoolUnclaimed)) : undefined;
      return { ...balancesOf(services, body.wallet), positions, dbcPool: pool ? plain(pool) : null };
    } catch (error) {
      return fail(reply, error);
    }
  });

  app.post('/__venue/price', async (request, reply) => {
    const body = parse(priceSchema, request.body, reply);
    if (!body) return reply;
    sync();
    const price = body.priceUsd ? toBigInt(body.priceUsd) : decimalToScaled(body.price as string, 6);
    if (price <= 0n) return reply.status(400).send({ error: 'price must be above zero' });
    services.market.setPrice(body.market as MarketSymbol, price);
    return { nowMs: services.market.now(), prices: plain(services.market.oracle.snapshot()) };
  });

  app.post('/__venue/advance', async (request, reply) => {
    const body = parse(advanceSchema, request.body, reply);
    if (!body) return reply;
    services.clock.advance(body.ms);
    sync();
    return { nowMs: services.market.now(), slot: services.chain.slot(), blockHeight: services.chain.blockHeight(), prices: plain(services.market.oracle.snapshot()) };
  });

  app.get('/__venue/faults', async () => ({ operations: services.faults.snapshot(), rpc: services.rpcFaults.snapshot(), chain: services.chain.faults(), settings: plain({ ...services.settings, forbidden: [...services.settings.forbidden] }) }));

  app.post('/__venue/faults', async (request, reply) => {
    const body = parse(faultPatchSchema, request.body, reply);
    if (!body) return reply;
    applyFaultPatch(services, body);
    return { operations: services.faults.snapshot(), rpc: services.rpcFaults.snapshot(), chain: services.chain.faults() };
  });

  app.delete('/__venue/faults', async () => {
    services.faults.clear();
    services.rpcFaults.clear();
    services.chain.setDropRate(0);
    services.chain.setDropAll(false);
    services.chain.setSimulatedOutflow(null);
    return { operations: {}, rpc: services.rpcFaults.snapshot(), chain: services.chain.faults() };
  });

  app.post('/__venue/limit-orders', async (request, reply) => {
    const body = parse(limitOrderSchema, request.body, reply);
    if (!body) return reply;
    sync();
    const spec = marketBySymbol(body.market);
    if (!spec) return reply.status(400).send({ error: `unknown market ${body.market}` });
    try {
      const order = services.market.limitOrders.create({
        owner: body.wallet,
        market: spec,
        side: body.side,
        collateralMint: body.side === 'long' ? spec.mint : MINTS.USDC,
        inputMint: body.inputMint,
        inputAmount: toBigInt(body.inputAmount),
        triggerPrice: toBigInt(body.triggerPrice),
        sizeUsdDelta: body.sizeUsdDelta ? toBigInt(body.sizeUsdDelta) : undefined,
        leverageBps: body.leverage ? decimalToScaled(body.leverage, 4) : undefined,
      }, services.market.now());
      return limitOrderJson(services.market, order);
    } catch (error) {
      return fail(reply, error);
    }
  });

  app.delete('/__venue/limit-orders', async (request, reply) => {
    const body = parse(cancelLimitSchema, request.body, reply);
    if (!body) return reply;
    try {
      return limitOrderJson(services.market, services.market.limitOrders.cancel(body.requestPubkey));
    } catch (error) {
      return fail(reply, error);
    }
  });
}
