import { existsSync, statSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { REPO_ROOT_URL, RUNTIME } from '../../kernel/runtime.ts';

const REPO_ROOT = fileURLToPath(REPO_ROOT_URL);
const DIST_ROOT = RUNTIME === 'dist' ? join(REPO_ROOT, 'dist') : undefined;

const TYPESCRIPT = /\.m?ts$/;
let tsLoader: Promise<void> | undefined;

/**
 * The URL to import for a strategy file. Compiled code loads a TypeScript strategy of the checkout
 * from its compiled copy in dist/ when that copy is at least as new (one module graph, no
 * TypeScript loader); any other TypeScript strategy registers tsx's loader first, once, so a
 * process without a .ts strategy to load never loads tsx.
 */
export async function strategyModuleUrl(file: string): Promise<string> {
  if (RUNTIME === 'src' || !TYPESCRIPT.test(file)) return pathToFileURL(file).href;
  const compiled = compiledCopy(file);
  if (compiled) return pathToFileURL(compiled).href;
  tsLoader ??= import('tsx/esm/api').then(({ register }) => void register());
  await tsLoader;
  return pathToFileURL(file).href;
}

function compiledCopy(file: string): string | undefined {
  const inRepo = relative(REPO_ROOT, file);
  if (!DIST_ROOT || inRepo.startsWith('..') || inRepo.startsWith(`dist${sep}`)) return undefined;
  const candidate = join(DIST_ROOT, inRepo.replace(TYPESCRIPT, (ext) => (ext === '.mts' ? '.mjs' : '.js')));
  if (!existsSync(candidate)) return undefined;
  return statSync(candidate).mtimeMs >= statSync(file).mtimeMs ? candidate : undefined;
}

/**
 * Whether importing `url` needs the SDK resolve hook (sdk-resolution.ts). The build links the
 * compiled strategies in dist/ to the compiled SDK by relative path, so the compiled runtime loads
 * them without it, and without the worker thread Node runs module hooks in. Every other module
 * (a strategies directory elsewhere, a package, TypeScript through tsx) still resolves
 * `stratd/*` through the hook.
 */
export function needsSdkResolution(url: string): boolean {
  return DIST_ROOT === undefined || !url.startsWith(pathToFileURL(join(DIST_ROOT, 'strategies') + sep).href);
}

/** Whether this process registered tsx's loader for a TypeScript strategy (compiled runs only). */
export function typeScriptLoaderRegistered(): boolean {
  return tsLoader !== undefined;
}
