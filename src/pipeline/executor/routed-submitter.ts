import type { ApiClient } from '../../api/client.ts';
import type { ChainClient } from '../../chain/rpc-client.ts';
import { ULTRA_UNSENT_CODES, type ExecuteReply } from './execute-reply.ts';
import type { SendAnswer, SignedAction, Submitter } from './ports.ts';

/**
 * The one route switch: an action's signed bytes go over JSON-RPC (`rpc`) or to its product's
 * execute operation (perps, trigger, recurring, Ultra). The executor and the backtest both send
 * through it, so a route added here is a route both take.
 */
export class RoutedSubmitter implements Submitter {
  constructor(private readonly transports: { readonly client: Pick<ApiClient, 'call'>; readonly chain: Pick<ChainClient, 'sendRaw'> }) {}

  async submit(action: SignedAction, options: { readonly repeat: boolean }): Promise<SendAnswer> {
    if (action.route === 'rpc') return { via: 'rpc', sent: await this.transports.chain.sendRaw(Buffer.from(action.signedTx!, 'base64')) };
    return { via: 'execute', reply: await this.post(action, options) };
  }

  /**
   * Posts the action's signed bytes to its route's execute operation. `repeat`: the same bytes may
   * have been posted before (a previous process), so no reply can prove that nothing was sent.
   */
  private async post(r: SignedAction, options: { readonly repeat: boolean }): Promise<ExecuteReply> {
    const client = this.transports.client;
    const signedTransaction = r.signedTx!;
    switch (r.route) {
      case 'perps-execute':
        await client.call('perps.execute', { action: r.executeAction as never, serializedTxBase64: signedTransaction });
        return {};
      case 'trigger-execute': {
        const result = await client.call('trigger.execute', { requestId: r.requestId!, signedTransaction });
        // "Failed" also covers "failed to land" and "timed out": the chain settles it, not the reply.
        return result.status === 'Success' ? {} : { detail: `execute answered Failed: ${`${String(result.code ?? '')} ${result.error ?? ''}`.trim()}` };
      }
      case 'recurring-execute': {
        const result = await client.call('recurring.execute', { requestId: r.requestId!, signedTransaction });
        return result.status === 'Success' ? {} : { detail: `execute answered Failed: ${result.error ?? ''}`.trim() };
      }
      case 'ultra-execute': {
        const result = await client.call('ultra.execute', { requestId: r.requestId!, signedTransaction });
        if (result.status === 'Success') {
          // The landing is proved by the chain's status of our own signature, never by the reply's word.
          if (result.signature !== undefined && result.signature !== r.signature) return { detail: `execute answered Success for signature ${result.signature}, not this action's ${r.signature ?? '?'}` };
          const inAmount = result.inputAmountResult ?? result.totalInputAmount;
          const outAmount = result.outputAmountResult ?? result.totalOutputAmount;
          return inAmount !== undefined && outAmount !== undefined ? { swapFill: { inAmount, outAmount } } : {};
        }
        const detail = `Ultra execute answered Failed, code ${String(result.code)}${result.error ? `: ${result.error}` : ''}`;
        const unsent = ULTRA_UNSENT_CODES[result.code];
        if (!options.repeat && unsent !== undefined) return { unsent: { reason: 'execute:unsent', detail: `${detail} (${unsent}: the service sent nothing)` } };
        return { detail };
      }
      case 'rpc':
      case undefined:
        throw new Error(`RoutedSubmitter: route ${String(r.route)} has no execute operation`);
    }
  }
}
