// Child process of fresh-import.test.ts: loads one strategy directory twice with `fresh` under
// the runtime it was started with (tsx or dist), rewriting the module in between, and prints
// the description each load saw, one per line.
import { setTimeout as sleep } from 'node:timers/promises';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadStrategies } from '../../src/pipeline/strategy-runtime/loader.ts';

const dir = process.argv[2];
if (!dir) throw new TypeError('usage: fresh-import-child.ts <strategies dir>');
const file = join(dir, 'hot.ts');
const load = async () => (await loadStrategies({ dir, enabled: ['hot'], settings: {}, fresh: true })).strategies[0]?.strategy.description;
const first = await load();
writeFileSync(file, readFileSync(file, 'utf8').replace("'first'", "'second'"));
// The file's mtime is the module's cache key: make sure the rewrite moves it.
await sleep(20);
console.log(first);
console.log(await load());
