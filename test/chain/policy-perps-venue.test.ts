// Perps transactions as the simulated venue builds them for every write operation: they carry the
// program's real instructions (decoded here with layouts built from the IDL alone) and the signing
// policy accepts each one with the roles it expects. Hostile variants made from them are refused in
// policy-perps-hostile.test.ts (apart: it never reads ../shared, so .ci/standalone-check skips it).
import { VersionedTransaction } from '@solana/web3.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MINTS } from '../../src/api/mints.ts';
import { decodeTransaction } from '../../src/chain/decode.ts';
import { DEFAULT_PRIORITY_FEE_CAP_LAMPORTS, inspectTransaction } from '../../src/chain/policy/index.ts';
import { PROGRAMS } from '../../src/chain/programs.ts';
import type { ActionRecord } from '../../src/records/action-record.ts';
import { PolicyInspector } from '../../src/pipeline/executor/policy-inspector.ts';
import type { DecreaseIntent } from '../../src/sdk/intent.ts';
import { tokenAccountOf } from '../../src/venue/tx/perps-instructions.ts';
import { venueMarkPrice } from '../support/venue-mark-price.ts';
import { decodeWithIdl, perpsIdlAvailable } from '../support/perps-idl.ts';
import { needsShared } from '../support/shared-data.ts';
import { sign } from '../venue/venue-fixture.ts';
import { buildDecrease as buildVenueDecrease, decreaseIntent, startPerpsDecreaseVenue, type Built, type PerpsDecreaseVenue } from './support/perps-decrease-venue.ts';

// The IDL cross-checks (live instruction names and account roles) need the perps IDL, which is
// kept beside the checkout, not in it; the policy assertions run either way.
if (!perpsIdlAvailable()) console.warn(`policy-perps-venue: IDL cross-checks ${needsShared('idl')}`);

let v: PerpsDecreaseVenue;
let client: PerpsDecreaseVenue['client'];
let wallet: PerpsDecreaseVenue['wallet'];
let address: string;
let solLong: PerpsDecreaseVenue['solLong'];
let ethShort: PerpsDecreaseVenue['ethShort'];

beforeAll(async () => {
  v = await startPerpsDecreaseVenue();
  ({ client, wallet, address, solLong, ethShort } = v);
});

afterAll(async () => {
  await v.close();
});

function perpsIxs(base64: string): Array<{ data: Uint8Array; keys: string[] }> {
  const tx = VersionedTransaction.deserialize(Buffer.from(base64, 'base64'));
  const keys = tx.message.staticAccountKeys.map((k) => k.toBase58());
  return tx.message.compiledInstructions.filter((ix) => keys[ix.programIdIndex] === PROGRAMS.perps).map((ix) => ({ data: ix.data, keys: ix.accountKeyIndexes.map((i) => keys[i] as string) }));
}

async function verdict(built: Built, intent?: DecreaseIntent) {
  const ctx = { wallet: wallet.publicKey, operationId: built.operationId, transactionType: built.instant ? ('instant' as const) : ('legacy' as const), priorityFeeCapLamports: DEFAULT_PRIORITY_FEE_CAP_LAMPORTS };
  if (intent) {
    const inspector = new PolicyInspector({ wallet: wallet.publicKey, priorityFeeCapLamports: DEFAULT_PRIORITY_FEE_CAP_LAMPORTS, markPrice: venueMarkPrice(client, address), priceDriftBps: 300 });
    const record = { intent } as ActionRecord;
    const tx = VersionedTransaction.deserialize(Buffer.from(built.base64, 'base64'));
    return inspector.inspect(tx, record, { operationId: built.operationId, route: built.instant ? 'perps-execute' : 'rpc', positionPubkey: intent.positionPubkey });
  }
  return inspectTransaction(await decodeTransaction(built.base64), ctx);
}

const buildDecrease = (instant: boolean) => buildVenueDecrease(v, instant);

describe('the venue builds the perps program instructions, and the policy accepts them', () => {
  it('perps.decrease: legacy request and instant variant, with the executor intent', async () => {
    for (const instant of [false, true]) {
      const built = await buildDecrease(instant);
      expect(built.instant).toBe(instant);
      const [ix] = perpsIxs(built.base64);
      if (perpsIdlAvailable()) {
        const decoded = decodeWithIdl(ix!.data, ix!.keys);
        expect(decoded?.name).toBe(instant ? 'instantDecreasePosition' : 'createDecreasePositionMarketRequest');
        expect(decoded?.accounts).toMatchObject({ owner: address, receivingAccount: tokenAccountOf(address, MINTS.USDC), position: solLong.positionPubkey, desiredMint: MINTS.USDC });
        expect(decoded?.args.sizeUsdDelta).toBe('100000000');
        // The request the API names is the account the instruction creates.
        if (!instant) expect(decoded?.accounts.positionRequest).toBe(built.requestPubkey);
      }
      expect(await verdict(built, decreaseIntent(solLong.positionPubkey, '100000000'))).toMatchObject({ ok: true, violations: [] });
    }
  });

  it('every other write operation, legacy and instant', async () => {
    const increase = async (transactionType: 'legacy' | 'instant') => {
      const res = await client.call('perps.increase', {
        inputMint: MINTS.SOL, collateralMint: MINTS.SOL, marketMint: MINTS.SOL, side: 'long', collateralTokenDelta: '1000000000', leverage: '3', maxSlippageBps: '100',
        walletAddress: address, transactionType, tpsl: transactionType === 'instant' ? [{ desiredMint: MINTS.SOL, triggerPrice: '400000000', requestType: 'tp' }] : null,
      });
      return { built: { operationId: 'perps.increase' as const, base64: res.serializedTxBase64 as string, instant: res.transactionType === 'instant' }, request: res.positionRequestPubkey, tpsl: res.tpslRequests };
    };
    const legacyIncrease = await increase('legacy');
    const instantIncrease = await increase('instant');
    const tpsl = async (transactionType: 'legacy' | 'instant') => {
      const res = await client.call('perps.createTpsl', {
        owner: address, positionPubkey: ethShort.positionPubkey, transactionType,
        tpsl: [{ desiredMint: MINTS.USDC, sizeUsdDelta: '0', entirePosition: true, triggerPrice: '1000000000', requestType: 'tp' }],
      });
      return { operationId: 'perps.createTpsl' as const, base64: res.serializedTxBase64, instant: res.transactionType === 'instant', tpslPubkeys: res.tpslPubkeys };
    };
    const legacyTpsl = await tpsl('legacy');
    const instantTpsl = await tpsl('instant');
    await client.call('perps.execute', { action: 'create-tpsl', serializedTxBase64: sign(instantTpsl.base64, wallet) });
    const update = await client.call('perps.updateTpslWithFee', { tpslPubkey: instantTpsl.tpslPubkeys[0] as string, triggerPrice: '1100000000', feeToken: 'USDC', feeTokenAmount: '500000', feeReceiver: address });
    const lp = await client.call('perps.lpMint', { depositToken: 'USDC', depositTokenAmount: '100000000', walletAddress: address });
    const borrow = await client.call('perps.depositBorrow', { walletAddress: address, depositTokenAmount: '25000000', borrowTokenAmount: '20000000' });
    const cases: Array<[Built, string[]]> = [
      [legacyIncrease.built, ['createIncreasePositionMarketRequest']],
      [instantIncrease.built, ['instantIncreasePosition', 'instantCreateTpsl']],
      [legacyTpsl, ['createDecreasePositionRequest2']],
      [instantTpsl, ['instantCreateTpsl']],
      [{ operationId: 'perps.updateTpslWithFee', base64: update.serializedTxBase64, instant: true }, ['instantUpdateTpsl']],
      [{ operationId: 'perps.lpMint', base64: lp.serializedTxBase64 as string, instant: false }, ['addLiquidity2']],
      [{ operationId: 'perps.depositBorrow', base64: borrow.serializedTxBase64 as string, instant: false }, ['depositCollateralForBorrows', 'borrowFromCustody']],
    ];
    for (const [built, names] of cases) {
      if (perpsIdlAvailable()) {
        const decoded = perpsIxs(built.base64).map((ix) => decodeWithIdl(ix.data, ix.keys));
        expect(decoded.map((d) => d?.name), built.operationId).toEqual(names);
        for (const d of decoded) expect(d?.accounts.owner).toBe(address);
      }
      expect(await verdict(built), `${built.operationId} ${names.join()}`).toMatchObject({ ok: true, violations: [] });
    }
    if (perpsIdlAvailable()) {
      const [legacyIx] = perpsIxs(legacyIncrease.built.base64);
      expect(decodeWithIdl(legacyIx!.data, legacyIx!.keys)?.accounts.positionRequest).toBe(legacyIncrease.request);
      const tpslIx = perpsIxs(instantIncrease.built.base64)[1];
      expect(decodeWithIdl(tpslIx!.data, tpslIx!.keys)?.accounts.positionRequest).toBe(instantIncrease.tpsl?.[0]?.positionRequestPubkey);
    }
  });
});
