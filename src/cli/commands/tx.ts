import { parseArgs } from 'node:util';
import { Connection, PublicKey } from '@solana/web3.js';
import { isOperationId, type OperationId } from '../../api/registry.ts';
import { LookupTableUnavailable, readWireTransaction, rpcLookupTableResolver, TransactionDecodeError, type LookupTableResolver } from '../../chain/decode.ts';
import { rpcAccountReader, type AccountReader } from '../../chain/policy/index.ts';
import { isConfigError, loadConfig, splitConfigArgs } from '../../config/index.ts';
import { ChainClient } from '../../chain/rpc-client.ts';
import { operationOfIntent, PolicyInspector } from '../../pipeline/executor/policy-inspector.ts';
import { SimulationCheck, SimulationUnavailable } from '../../pipeline/executor/simulation-check.ts';
import { intentSchema, type Intent } from '../../sdk/intent.ts';
import { EXIT, type Command } from '../command.ts';
import { explainViolation } from './violation-text.ts';

const USAGE = `usage:
  stratd tx inspect --wallet <pubkey> (--operation <operationId> | --intent <json>) [options] <base64 | ->
      Decodes a transaction (base64, or "-" to read it from stdin) and judges it exactly as the
      executor would, with the same code. Prints JSON { decoded, ok, violations: [{ rule, detail }],
      explanations }, and each refusal explained in one line on stderr.
      Exit 0 when the policy allows it, 3 when it rejects it, 2 on unreadable input or bad usage.
  options:
      --intent <json>                the strategy intent the transaction claims to carry out; it
                                     bounds what may leave the wallet. Without it, the strictest
                                     bounds apply: nothing may leave the wallet.
      --rpc <url>                    read lookup tables, mints and token accounts through this RPC;
                                     without it no mint's token program is known, so no associated
                                     token account counts as the wallet's
      --simulate <rpc-url>           also run the balance-delta check: simulate the transaction on this
                                     RPC with the wallet's accounts and compare with the intent
                                     (policy.simulation.*; reads mints and token accounts there too
                                     unless --rpc is given)
      --priority-fee-cap <lamports>  default: execution.priorityFeeCapLamports
      --slippage-bps <bps>           default: execution.slippageBps (only with --intent)
      --mark-price <usd×10^6>        the position's current mark price: it bounds the worst price
                                     a decrease may fill at (maxSlippageBps + --price-drift-bps
                                     from it). Without it a decrease intent's market request is
                                     refused (the executor waits for a fresh mark instead)
      --price-drift-bps <bps>        default: execution.priceDriftBps
      --quote-out <amount>           a swap intent's quote: the output (smallest unit) the Ultra
                                     order promised for the intent's amount. It bounds the route's
                                     minimum out (less maxSlippageBps or --slippage-bps); without it
                                     a swap is refused (its minimum out cannot be bounded)
      --max-account-space <bytes>    default: execution.maxAccountSpaceBytes
      --transaction-type <type>      legacy (default) or instant (allows one empty keeper signer slot)
      --blockhash <hash>             the txMetadata blockhash the transaction must carry
      --known-account <pubkey>       an account the operation explains (repeatable)
      --config <file>, --set key.path=value   the configuration the defaults come from
`;

export const txCommand: Command = {
  name: 'tx',
  usage: USAGE,
  async run(argv) {
    const [sub, ...rest] = argv;
    if (sub === 'inspect') return inspect(rest);
    process.stderr.write(USAGE);
    return sub === '--help' || sub === '-h' ? EXIT.ok : EXIT.usage;
  },
};

function usageError(message: string): number {
  process.stderr.write(`stratd tx inspect: ${message}\n\n${USAGE}`);
  return EXIT.usage;
}

const WHOLE = /^\d+$/;

async function inspect(argv: string[]): Promise<number> {
  const configArgs = splitConfigArgs(argv);
  let parsed;
  try {
    parsed = parseArgs({
      args: [...configArgs.rest],
      allowPositionals: true,
      options: {
        wallet: { type: 'string' },
        operation: { type: 'string' },
        intent: { type: 'string' },
        rpc: { type: 'string' },
        simulate: { type: 'string' },
        'priority-fee-cap': { type: 'string' },
        'slippage-bps': { type: 'string' },
        'mark-price': { type: 'string' },
        'price-drift-bps': { type: 'string' },
        'quote-out': { type: 'string' },
        'max-account-space': { type: 'string' },
        'transaction-type': { type: 'string', default: 'legacy' },
        blockhash: { type: 'string' },
        'known-account': { type: 'string', multiple: true, default: [] },
        help: { type: 'boolean', short: 'h', default: false },
      },
    });
  } catch (error) {
    return usageError((error as Error).message);
  }
  const { values, positionals } = parsed;
  if (values.help) {
    process.stdout.write(USAGE);
    return EXIT.ok;
  }
  let execution;
  let simulationSettings;
  try {
    // Only mode, execution.* and policy.* are read: a live configuration without its secrets here is no problem.
    const config = loadConfig({ argv, liveRequirements: false }).config;
    execution = config.execution;
    simulationSettings = { ...config.policy.simulation, enabled: true };
  } catch (error) {
    if (!isConfigError(error)) throw error;
    return usageError(error.message);
  }
  const wallet = parsePublicKey(values.wallet);
  if (!wallet) return usageError('--wallet must be a base58 public key');
  let intent: Intent | undefined;
  if (values.intent !== undefined) {
    const result = parseIntent(values.intent);
    if (typeof result === 'string') return usageError(`--intent: ${result}`);
    intent = result;
  }
  const operation = resolveOperation(values.operation, intent);
  if (typeof operation !== 'object') return usageError(operation);
  const cap = values['priority-fee-cap'] ?? execution.priorityFeeCapLamports;
  if (!WHOLE.test(cap)) return usageError('--priority-fee-cap must be a whole number of lamports');
  const slippage = values['slippage-bps'] ?? String(execution.slippageBps);
  if (!WHOLE.test(slippage) || Number(slippage) > 10_000) return usageError('--slippage-bps must be a whole number from 0 to 10000');
  const mark = values['mark-price'];
  if (mark !== undefined && !/^[1-9]\d*$/.test(mark)) return usageError('--mark-price must be a positive whole number (USD × 10^6)');
  const drift = values['price-drift-bps'] ?? String(execution.priceDriftBps);
  if (!WHOLE.test(drift) || Number(drift) > 10_000) return usageError('--price-drift-bps must be a whole number from 0 to 10000');
  const quoteOut = values['quote-out'];
  if (quoteOut !== undefined && !WHOLE.test(quoteOut)) return usageError('--quote-out must be a whole number (the output mint\'s smallest unit)');
  const swapQuote = quoteOut !== undefined && intent?.type === 'swap' ? { inAmount: intent.amount, outAmount: quoteOut } : undefined;
  const space = values['max-account-space'] ?? execution.maxAccountSpaceBytes;
  if (!WHOLE.test(space)) return usageError('--max-account-space must be a whole number of bytes');
  const transactionType = values['transaction-type'];
  if (transactionType !== 'legacy' && transactionType !== 'instant') return usageError('--transaction-type must be legacy or instant');
  const knownAccounts = values['known-account'];
  if (knownAccounts.some((a) => !parsePublicKey(a))) return usageError('--known-account must be a base58 public key');
  if (positionals.length !== 1) return usageError('give exactly one transaction: base64 text, or "-" for stdin');

  let resolveLookupTable: LookupTableResolver | undefined;
  let readAccounts: AccountReader | undefined;
  if (values.rpc) {
    try {
      const connection = new Connection(values.rpc, 'confirmed');
      resolveLookupTable = rpcLookupTableResolver(connection);
      readAccounts = rpcAccountReader(connection);
    } catch (error) {
      return usageError(`--rpc: ${(error as Error).message}`);
    }
  }
  let simulation: SimulationCheck | undefined;
  if (values.simulate !== undefined) {
    let node: ChainClient;
    try {
      node = new ChainClient(new URL(values.simulate).toString(), 'confirmed');
    } catch (error) {
      return usageError(`--simulate: ${(error as Error).message}`);
    }
    simulation = new SimulationCheck(node.simulation, () => simulationSettings);
    readAccounts ??= node.readAccounts;
  }

  const input = positionals[0] === '-' ? await readStdin() : (positionals[0] ?? '');
  let transaction;
  try {
    // Read as the executor reads a build: the digest printed is the one a verdict binds.
    transaction = readWireTransaction(input);
  } catch (error) {
    if (!(error instanceof TransactionDecodeError)) throw error;
    const violations = [{ rule: 'malformed', detail: error.message }];
    process.stdout.write(`${JSON.stringify({ decoded: null, ok: false, violations }, null, 2)}\n`);
    process.stderr.write(`stratd tx inspect: ${error.message}\n`);
    return EXIT.usage;
  }
  // The executor's own inspector, configured as the daemon configures it.
  const inspector = new PolicyInspector({
    wallet,
    priorityFeeCapLamports: BigInt(cap),
    resolveLookupTable,
    readAccounts,
    slippageBps: Number(slippage),
    markPrice: mark === undefined ? undefined : async () => BigInt(mark),
    priceDriftBps: Number(drift),
    maxAccountSpaceBytes: BigInt(space),
    ultraPlatformFeeAccount: execution.ultraPlatformFeeAccount || undefined,
    ultraMaxFeeBps: execution.ultraMaxFeeBps,
    simulation,
  });
  const route = transactionType === 'instant' ? 'perps-execute' : operation.id.startsWith('trigger.') ? 'trigger-execute' : 'rpc';
  let inspection;
  try {
    inspection = await inspector.inspectDetailed(
      transaction,
      intent,
      { operationId: operation.id, route, swapQuote, txMetadata: values.blockhash ? { blockhash: values.blockhash } : undefined },
      knownAccounts,
    );
  } catch (error) {
    // The RPC did not answer for a lookup table, or could not simulate: no verdict either way (exit 1, not 3).
    if (!(error instanceof LookupTableUnavailable) && !(error instanceof SimulationUnavailable)) throw error;
    process.stderr.write(`stratd tx inspect: ${error.message}; try again when the RPC answers\n`);
    return EXIT.failed;
  }
  const { decoded, verdict } = inspection;
  const explanations = verdict.violations.map(explainViolation);
  process.stdout.write(`${JSON.stringify({ decoded, ok: verdict.ok, violations: verdict.violations, explanations }, null, 2)}\n`);
  for (const line of explanations) process.stderr.write(`refused: ${line}\n`);
  return verdict.ok ? EXIT.ok : EXIT.rejected;
}

function parseIntent(text: string): Intent | string {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return 'not JSON';
  }
  const result = intentSchema.safeParse(json);
  if (result.success) return result.data;
  return result.error.issues.map((issue) => `${issue.path.join('.') || '(intent)'}: ${issue.message}`).join('; ');
}

/** The operation: --operation, or the one that serves the intent; both must agree. */
function resolveOperation(given: string | undefined, intent: Intent | undefined): { id: OperationId } | string {
  const served = intent ? operationOfIntent(intent) : undefined;
  if (given === undefined) return served ? { id: served } : '--operation or --intent is required';
  if (!isOperationId(given)) return `--operation must be an operation id (see "stratd api list"), got ${JSON.stringify(given)}`;
  if (served && served !== given) return `--operation ${given} does not serve a ${intent!.type} intent (${served} does)`;
  return { id: given };
}

function parsePublicKey(text: string | undefined): PublicKey | undefined {
  if (!text) return undefined;
  try {
    return new PublicKey(text);
  } catch {
    return undefined;
  }
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}
