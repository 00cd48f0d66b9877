import { register } from 'node:module';
import { REPO_ROOT_URL, RUNTIME } from '../../kernel/runtime.ts';

let registered = false;

/**
 * Makes `import … from 'stratd/strategy'` work in a strategy module outside this package
 * (strategies.dir anywhere on disk, a package in strategies.modules without stratd as its
 * own dependency) and, under the compiled runtime, in the compiled strategies: a resolve hook
 * maps `stratd/*` to this installation's SDK of the running runtime (src/ or dist/). The hook
 * is plain JavaScript kept with the sources, so both runtimes register the same file.
 * Idempotent.
 */
export function registerSdkResolution(): void {
  if (registered) return;
  registered = true;
  register(new URL('src/pipeline/strategy-runtime/sdk-resolve-hook.mjs', REPO_ROOT_URL), { data: { runtime: RUNTIME } });
}

/** Whether this process registered the resolve hook (and so runs Node's module-hooks worker thread). */
export function sdkResolutionRegistered(): boolean {
  return registered;
}
