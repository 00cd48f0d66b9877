import type { ConfigProblem } from './errors.ts';

/**
 * What live mode refuses to start without: the API key, a wallet key (a key file, or the
 * variable wallet.keyEnv names) and an RPC URL. Checked on the merged values even when other
 * keys are invalid, so `config check` lists these too. Only presence is checked; the key is
 * never read here.
 */
export function liveRequirements(raw: Record<string, unknown>, env: NodeJS.ProcessEnv): ConfigProblem[] {
  if (raw.mode !== 'live') return [];
  const api = section(raw, 'api');
  const rpc = section(raw, 'rpc');
  const wallet = section(raw, 'wallet');
  const problems: ConfigProblem[] = [];
  if (isEmpty(api.key)) {
    problems.push({ path: 'api.key', message: 'live mode needs an API key', fix: 'export STRATD_API_KEY=<your key from the developer portal> (keep it out of config files)' });
  }
  const keyEnv = typeof wallet.keyEnv === 'string' ? wallet.keyEnv : 'STRATD_WALLET_KEY';
  if (isEmpty(wallet.keyFile) && isEmpty(env[keyEnv])) {
    problems.push({
      path: 'wallet.keyFile',
      message: `live mode needs a wallet key: wallet.keyFile is empty and ${keyEnv} is not set`,
      fix: `set wallet.keyFile (env STRATD_WALLET_KEY_FILE) to a solana-keygen key file with mode 0600, or export ${keyEnv}`,
    });
  }
  if (isEmpty(rpc.url)) {
    problems.push({ path: 'rpc.url', message: 'live mode needs an RPC URL', fix: 'export STRATD_RPC_URL=https://<your RPC provider>' });
  }
  return problems;
}

function section(raw: Record<string, unknown>, name: string): Record<string, unknown> {
  const value = raw[name];
  return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : {};
}

function isEmpty(value: unknown): boolean {
  return value === undefined || value === null || value === '';
}
