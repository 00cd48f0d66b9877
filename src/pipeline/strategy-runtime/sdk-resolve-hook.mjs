// Node module hooks (registered by sdk-resolution.ts) for strategy modules anywhere on disk.
// Plain JavaScript beside the sources: the same file serves the TypeScript and the compiled
// runtime.
// - `stratd/strategy` and `stratd/testing` resolve to the SDK of the installation and runtime
//   that loads the module: the package's `exports` map says which file (a self-reference from
//   the package root), and the compiled runtime takes that file's compiled copy in dist/, so a
//   strategy shares one module graph with the daemon that runs it;
// - a TypeScript file outside any `"type": "module"` package (a strategies directory in
//   /etc or a home directory) is loaded as an ES module, which is what strategies are
//   written as; otherwise tsx compiles it to CommonJS and the import fails with a
//   misleading "require() of ES Module in a cycle".
import { URL, fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = new URL('../../../', import.meta.url);
const PACKAGE_JSON = new URL('package.json', ROOT).href;
const TYPESCRIPT = /\.m?ts$/;
let runtime = 'src';

export function initialize(data) {
  if (data && data.runtime === 'dist') runtime = 'dist';
}

export async function resolve(specifier, context, nextResolve) {
  if (specifier === 'stratd' || specifier.startsWith('stratd/')) {
    const resolved = await nextResolve(specifier, { ...context, parentURL: PACKAGE_JSON });
    if (runtime !== 'dist' || !resolved.url.startsWith(ROOT.href) || !TYPESCRIPT.test(resolved.url)) return resolved;
    const inPackage = resolved.url.slice(ROOT.href.length);
    return { url: new URL(`dist/${inPackage.replace(/\.ts$/, '.js').replace(/\.mts$/, '.mjs')}`, ROOT).href, format: 'module', shortCircuit: true };
  }
  const resolved = await nextResolve(specifier, context);
  if (!resolved.url.startsWith('file:') || resolved.format === 'module' || resolved.url.includes('/node_modules/')) return resolved;
  // tsx marks a module it bridges to CommonJS with a query inside the path: drop it, but keep
  // the loader's own cache-buster (`?mtime=…`), or a hot reload would get the old module back.
  const path = fileURLToPath(resolved.url.split('?')[0]).split('?')[0];
  if (!TYPESCRIPT.test(path)) return resolved;
  const mtime = /[?&]mtime=([\d.]+)/.exec(resolved.url);
  return { url: pathToFileURL(path).href + (mtime ? `?mtime=${mtime[1]}` : ''), format: 'module', shortCircuit: true };
}
