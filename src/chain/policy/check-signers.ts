import type { DecodedTransaction } from '../decode.ts';
import type { PolicyContext } from './context.ts';
import type { Violation } from './verdict.ts';

/**
 * Rules fee_payer and unexpected_signer: the wallet pays the fee, and the wallet is the only
 * signer — except that an instant transaction may carry one more slot for the keeper, which must
 * still be empty when we receive it (the keeper co-signs after us).
 */
export function checkSigners(decoded: DecodedTransaction, ctx: PolicyContext): Violation[] {
  const wallet = ctx.wallet.toBase58();
  const violations: Violation[] = [];
  if (decoded.feePayer !== wallet) {
    violations.push({ rule: 'fee_payer', detail: `the fee payer is ${decoded.feePayer || '(none)'}, not the wallet ${wallet}` });
  }
  let keeperSlots = 0;
  for (const signer of decoded.signers) {
    if (signer.pubkey === wallet) continue;
    if (ctx.transactionType === 'instant' && keeperSlots === 0) {
      keeperSlots += 1;
      if (signer.signed) {
        violations.push({ rule: 'unexpected_signer', detail: `the keeper slot ${signer.pubkey} already carries a signature` });
      }
      continue;
    }
    const why = ctx.transactionType === 'instant' ? 'beyond the one keeper slot of an instant transaction' : 'in a transaction only the wallet signs';
    violations.push({ rule: 'unexpected_signer', detail: `${signer.pubkey} is a required signer ${why}` });
  }
  return violations;
}
