/** How one JSON-RPC request ended, for metrics. */
type RpcOutcome = 'ok' | 'rpc_error' | 'http_error' | 'network';

/** Told about every JSON-RPC request a connection makes (ops metrics); must not throw. */
export interface RpcObserver {
  call(method: string, outcome: RpcOutcome): void;
}

/**
 * A `fetch` for web3.js's Connection that tells `observer` the method and outcome of every
 * request it sends (batches count per entry), so every chain read and send is counted in one
 * place, including those web3.js makes for us (lookup tables). The reply is read from a clone;
 * the connection gets the original.
 */
export function observedFetch(observer: RpcObserver, inner: typeof fetch = fetch): typeof fetch {
  return async (input, init) => {
    const methods = methodsOf(init?.body);
    let response: Response;
    try {
      response = await inner(input, init);
    } catch (error) {
      for (const m of methods) observer.call(m, 'network');
      throw error;
    }
    if (!response.ok) {
      for (const m of methods) observer.call(m, 'http_error');
      return response;
    }
    const errors = await response
      .clone()
      .text()
      .then((text) => {
        const body = JSON.parse(text) as unknown;
        return (Array.isArray(body) ? body : [body]).map((entry) => typeof entry === 'object' && entry !== null && 'error' in entry);
      })
      .catch(() => methods.map(() => true));
    methods.forEach((m, i) => observer.call(m, errors[i] ? 'rpc_error' : 'ok'));
    return response;
  };
}

/** Method names of a JSON-RPC body (our own outgoing text); odd names collapse to "other" to bound label values. */
function methodsOf(body: unknown): string[] {
  if (typeof body !== 'string') return ['unknown'];
  try {
    const parsed = JSON.parse(body) as unknown;
    return (Array.isArray(parsed) ? parsed : [parsed]).map((entry) => {
      const method = typeof entry === 'object' && entry !== null ? (entry as { method?: unknown }).method : undefined;
      return typeof method === 'string' && /^[A-Za-z]{1,48}$/.test(method) ? method : 'other';
    });
  } catch {
    return ['unknown'];
  }
}
