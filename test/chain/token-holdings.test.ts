import { Keypair, PublicKey } from '@solana/web3.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient } from '../../src/api/client.ts';
import { MINTS } from '../../src/api/mints.ts';
import { ChainClient } from '../../src/chain/rpc-client.ts';
import { PROGRAMS } from '../../src/chain/programs.ts';
import { tokenAccountData } from '../../src/venue/chain/token-accounts.ts';
import { startVenue, type Venue } from '../../src/venue/venue.ts';
import { RecordingServer } from '../support/recording-server.ts';
import { VenueControl } from '../support/venue-control.ts';

// The heldTokens poller prices what the wallet holds on chain: read from its token accounts'
// bytes (getTokenAccountsByOwner), against the venue's real JSON-RPC and a node that lies.
let venue: Venue;
const node = new RecordingServer();
let nodeUrl: string;
beforeAll(async () => {
  venue = await startVenue({ seed: 5 });
  nodeUrl = await node.start();
});
afterAll(async () => {
  await venue.close();
  await node.stop();
});

describe('the wallet token holdings', () => {
  it('are every mint held with its exact amount, from both token programs', async () => {
    const owner = Keypair.generate().publicKey.toBase58();
    const [ranked] = await new ApiClient({ baseUrl: venue.apiUrl, retries: 0 }).call('tokens.ranked', { category: 'toptrending', interval: '1h', limit: 1 });
    const token = ranked!.id;
    await new VenueControl(venue.apiUrl).fund({ wallet: owner, usdc: '1000000', tokens: { [token]: '18446744073709551615' } });
    const held = await new ChainClient(venue.rpcUrl).tokenHoldings(owner);
    expect(held.sort((a, b) => a.mint.localeCompare(b.mint))).toEqual([{ mint: MINTS.USDC, amount: 1_000_000n }, { mint: token, amount: 18_446_744_073_709_551_615n }].sort((a, b) => a.mint.localeCompare(b.mint)));
  });

  it('the venue answers jsonParsed as a node does, so a paper daemon shows its USDC balance', async () => {
    const owner = Keypair.generate().publicKey.toBase58();
    await new VenueControl(venue.apiUrl).fund({ wallet: owner, usdc: '2500001' });
    const chain = new ChainClient(venue.rpcUrl);
    const parsed = await chain.connection.getParsedTokenAccountsByOwner(new PublicKey(owner), { mint: new PublicKey(MINTS.USDC) });
    expect(parsed.value).toHaveLength(1);
    expect(parsed.value[0]!.account.data.parsed.info.tokenAmount).toMatchObject({ amount: '2500001', decimals: 6, uiAmountString: '2.500001' });
    const none = await chain.connection.getParsedTokenAccountsByOwner(new PublicKey(owner), { programId: new PublicKey(PROGRAMS.token2022) });
    expect(none.value).toEqual([]);
  });

  it('a node that lists an account its token program does not own, or too short, is refused by name', async () => {
    const owner = Keypair.generate().publicKey.toBase58();
    const mint = Keypair.generate().publicKey.toBase58();
    const account = (programOwner: string, bytes: Uint8Array) => ({ pubkey: Keypair.generate().publicKey.toBase58(), account: { owner: programOwner, data: [Buffer.from(bytes).toString('base64'), 'base64'], lamports: 2_039_280, executable: false, rentEpoch: 0, space: bytes.length } });
    const reply = (value: unknown[]) => ({ status: 200, body: JSON.stringify({ jsonrpc: '2.0', id: 1, result: { context: { slot: 1 }, value } }) });
    const chain = new ChainClient(nodeUrl);
    node.responder = () => reply([account(PROGRAMS.system, tokenAccountData({ owner, mint }, 5n))]);
    await expect(chain.tokenHoldings(owner)).rejects.toThrow(/owned by 11111111111111111111111111111111, not Tokenkeg/);
    node.responder = () => reply([account(PROGRAMS.token, tokenAccountData({ owner, mint }, 5n).subarray(0, 64))]);
    await expect(chain.tokenHoldings(owner)).rejects.toThrow(/64 bytes, too few/);
  });
});
