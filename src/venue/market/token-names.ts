import type { Prng } from './prng.ts';

const SYLLABLES = ['bon', 'ka', 'moo', 'zor', 'pep', 'wif', 'lu', 'na', 'ra', 'ti', 'gi', 'ga', 'chad', 'flo', 'ki', 'mo', 'pu', 'mi', 'sol', 'jup', 'doge', 'nyan', 'yo', 'zen', 'bo', 'ri', 'tu', 'vex', 'quo', 'lab'];
const SUFFIXES = ['', '', '', ' Inu', ' Coin', ' AI', ' Cat', ' Dog', ' Protocol', ' Finance', ' Labs', ' Moon'];

/** A pronounceable token name and ticker from the seeded stream. */
export function tokenName(rng: Prng, taken: ReadonlySet<string>): { name: string; symbol: string } {
  for (let attempt = 0; ; attempt++) {
    const parts = rng.int(2, 3);
    let word = '';
    for (let i = 0; i < parts; i++) word += rng.pick(SYLLABLES);
    const name = `${word.charAt(0).toUpperCase()}${word.slice(1)}${rng.pick(SUFFIXES)}`;
    const base = word.toUpperCase().replace(/[^A-Z]/g, '').slice(0, rng.int(3, 6));
    const symbol = attempt > 3 ? `${base}${String(attempt)}` : base;
    if (!taken.has(symbol)) return { name, symbol };
  }
}
