// Whether dist/ (the compiled JavaScript that production runs) is up to date with the sources,
// and how to bring it up to date. Plain JavaScript: it runs before anything is compiled.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../', import.meta.url));
export const DIST = join(ROOT, 'dist');
/** Written last by a build: the newest source modification time the build started from. */
const STAMP = join(DIST, '.build-stamp.json');
const LOCK = join(ROOT, 'dist.build-lock');
/** What the build reads: any of these newer than the stamp makes dist/ stale. */
const INPUTS = ['src', 'strategies', 'tsconfig.json', 'tsconfig.build.json', 'package.json'];
const STALE_LOCK_MS = 180_000;

/** The newest mtime (ms) among the build's inputs. One stat per file: a few ms for the whole tree. */
export function newestInputMs() {
  let newest = 0;
  const visit = (path) => {
    let stat;
    try {
      stat = statSync(path);
    } catch {
      return;
    }
    if (stat.isDirectory()) {
      for (const name of readdirSync(path)) visit(join(path, name));
    } else if (/\.(m?ts|json)$/.test(path)) {
      newest = Math.max(newest, stat.mtimeMs);
    }
  };
  for (const input of INPUTS) visit(join(ROOT, input));
  return newest;
}

/** dist/ exists and was built from sources no older than the ones on disk now. */
export function distIsFresh() {
  if (!existsSync(STAMP)) return false;
  try {
    const stamp = JSON.parse(readFileSync(STAMP, 'utf8'));
    // A dist/ from before compiled strategies were linked to the SDK counts as stale.
    return typeof stamp.newestInputMs === 'number' && stamp.sdkLinked === true && newestInputMs() <= stamp.newestInputMs;
  } catch {
    return false;
  }
}

/** The TypeScript compiler's entry point, or undefined when it is not installed (npm ci --omit=dev). */
function tscPath() {
  try {
    return createRequire(import.meta.url).resolve('typescript/bin/tsc');
  } catch {
    return undefined;
  }
}

export function canBuild() {
  return tscPath() !== undefined;
}

const sleep = (ms) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);

/**
 * Compiles src/ and strategies/ to dist/ with tsconfig.build.json, under a lock so that processes
 * starting together (tests, pm2 instances) build once. Returns { ok, ms, output }.
 */
export function build({ force = false } = {}) {
  const tsc = tscPath();
  if (!tsc) return { ok: false, ms: 0, output: 'typescript is not installed (npm ci --omit=dev?)' };
  const startedAt = Date.now();
  for (;;) {
    try {
      mkdirSync(LOCK);
      break;
    } catch {
      try {
        if (Date.now() - statSync(LOCK).mtimeMs > STALE_LOCK_MS) rmSync(LOCK, { recursive: true, force: true });
      } catch {
        // the holder just released it
      }
      sleep(100);
    }
  }
  try {
    // Another process may have built while this one waited.
    if (!force && distIsFresh()) return { ok: true, ms: Date.now() - startedAt, output: '' };
    const newest = newestInputMs();
    rmSync(STAMP, { force: true });
    const run = spawnSync(process.execPath, [tsc, '-p', join(ROOT, 'tsconfig.build.json')], { cwd: ROOT, encoding: 'utf8' });
    const output = `${run.stdout ?? ''}${run.stderr ?? ''}`.trim();
    // tsc emits even with type errors; only a missing entry point makes the build unusable.
    const usable = existsSync(join(DIST, 'src', 'cli', 'main.js'));
    if (usable) {
      linkCompiledStrategies();
      writeFileSync(STAMP, `${JSON.stringify({ newestInputMs: newest, builtAt: new Date().toISOString(), typeErrors: run.status !== 0, sdkLinked: true })}\n`);
    }
    return { ok: usable, ms: Date.now() - startedAt, output };
  } finally {
    rmSync(LOCK, { recursive: true, force: true });
  }
}

/**
 * Points the compiled strategies' `stratd/<entry>` imports at this build's compiled SDK by
 * relative path (the package's exports map names the source file of each entry). Node resolves
 * `stratd/strategy` from inside the package to the TypeScript source; without this, the compiled
 * runtime needs a module resolve hook, and Node runs module hooks in a worker thread of their own
 * (about 10 MB of RSS, measured) for the life of the process.
 */
function linkCompiledStrategies() {
  const exportsMap = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).exports ?? {};
  const compiledOf = (entry) => {
    const target = exportsMap[`./${entry}`];
    return typeof target === 'string' && /\.m?ts$/.test(target) ? join(DIST, target.replace(/\.ts$/, '.js').replace(/\.mts$/, '.mjs')) : undefined;
  };
  const visit = (dir) => {
    for (const name of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, name.name);
      if (name.isDirectory()) visit(path);
      else if (/\.m?js$/.test(name.name)) {
        const text = readFileSync(path, 'utf8');
        const linked = text.replace(/(\bfrom\s*|\bimport\s*\(\s*|\bimport\s+)(['"])stratd\/([a-z-]+)\2/g, (whole, lead, quote, entry) => {
          const compiled = compiledOf(entry);
          if (!compiled) return whole;
          let rel = relative(dirname(path), compiled).split(sep).join('/');
          if (!rel.startsWith('.')) rel = `./${rel}`;
          return `${lead}${quote}${rel}${quote}`;
        });
        if (linked !== text) writeFileSync(path, linked);
      }
    }
  };
  const strategies = join(DIST, 'strategies');
  if (existsSync(strategies)) visit(strategies);
}
