import { parseArgs } from 'node:util';
import { Connection, PublicKey } from '@solana/web3.js';
import { isOperationId } from '../../api/registry.ts';
import { decodeTransaction, readTransaction, rpcLookupTableResolver, TransactionDecodeError, type LookupTableResolver } from '../../chain/decode.ts';
import { DEFAULT_PRIORITY_FEE_CAP_LAMPORTS, inspectTransaction, type PolicyContext } from '../../chain/policy/index.ts';
import { EXIT, type Command } from '../command.ts';

const USAGE = `usage:
  stratd tx inspect --wallet <pubkey> --operation <operationId> [options] <base64 | ->
      Decodes a transaction (base64, or "-" to read it from stdin) and applies the signing policy
      of that operation. Prints JSON { decoded, ok, violations: [{ rule, detail }] }.
      Exit 0 when the policy allows it, 3 when it rejects it, 2 on unreadable input or bad usage.
  options:
      --rpc <url>                    resolve address lookup tables through this RPC
      --priority-fee-cap <lamports>  default ${DEFAULT_PRIORITY_FEE_CAP_LAMPORTS}
      --transaction-type <type>      legacy (default) or instant (allows one empty keeper signer slot)
      --blockhash <hash>             the txMetadata blockhash the transaction must carry
      --known-account <pubkey>       an account the operation explains (repeatable)
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

async function inspect(argv: string[]): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        wallet: { type: 'string' },
        operation: { type: 'string' },
        rpc: { type: 'string' },
        'priority-fee-cap': { type: 'string' },
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
  const wallet = parsePublicKey(values.wallet);
  if (!wallet) return usageError('--wallet must be a base58 public key');
  const operationId = values.operation;
  if (!operationId || !isOperationId(operationId)) return usageError(`--operation must be an operation id (see "stratd api list"), got ${JSON.stringify(operationId ?? '')}`);
  const cap = values['priority-fee-cap'] ?? DEFAULT_PRIORITY_FEE_CAP_LAMPORTS.toString();
  if (!/^\d+$/.test(cap)) return usageError('--priority-fee-cap must be a whole number of lamports');
  const transactionType = values['transaction-type'];
  if (transactionType !== 'legacy' && transactionType !== 'instant') return usageError('--transaction-type must be legacy or instant');
  const knownAccounts = values['known-account'];
  if (knownAccounts.some((a) => !parsePublicKey(a))) return usageError('--known-account must be a base58 public key');
  if (positionals.length !== 1) return usageError('give exactly one transaction: base64 text, or "-" for stdin');

  let resolveLookupTable: LookupTableResolver | undefined;
  if (values.rpc) {
    try {
      resolveLookupTable = rpcLookupTableResolver(new Connection(values.rpc, 'confirmed'));
    } catch (error) {
      return usageError(`--rpc: ${(error as Error).message}`);
    }
  }

  const input = positionals[0] === '-' ? await readStdin() : (positionals[0] ?? '');
  let transaction;
  try {
    transaction = readTransaction(input);
  } catch (error) {
    if (!(error instanceof TransactionDecodeError)) throw error;
    const violations = [{ rule: 'malformed', detail: error.message }];
    process.stdout.write(`${JSON.stringify({ decoded: null, ok: false, violations }, null, 2)}\n`);
    process.stderr.write(`stratd tx inspect: ${error.message}\n`);
    return EXIT.usage;
  }
  const decoded = await decodeTransaction(transaction, { resolveLookupTable });
  const ctx: PolicyContext = {
    wallet,
    operationId,
    transactionType,
    txMetadata: values.blockhash ? { blockhash: values.blockhash } : undefined,
    priorityFeeCapLamports: BigInt(cap),
    knownAccounts,
  };
  const verdict = inspectTransaction(decoded, ctx);
  process.stdout.write(`${JSON.stringify({ decoded, ok: verdict.ok, violations: verdict.violations }, null, 2)}\n`);
  return verdict.ok ? EXIT.ok : EXIT.rejected;
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
