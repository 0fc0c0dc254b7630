import type { FetchFn } from './source.ts';
import { SOURCE_FACTORIES } from './sources/index.ts';

/**
 * The sources that quote `pair` and need no key, two at most: what the error and `payd doctor`
 * suggest writing under pricing.pairs ("USDT/INR": ["coindcx", "wazirx"]).
 */
export function suggestSources(pair: string): string[] {
  const offline: FetchFn = () => Promise.reject(new Error('not asked'));
  return Object.entries(SOURCE_FACTORIES)
    .filter(([, f]) => !f.needsKey && f.build({ fetch: offline, baseUrl: f.baseUrl }).supports(pair))
    .map(([name]) => name)
    .slice(0, 2);
}

/** How to configure missing pairs, in the words the error and `payd doctor` use. */
export function configurePairHint(pairs: readonly string[]): string {
  const entries = pairs.map((pair) => `"${pair}": [${suggestSources(pair).map((s) => `"${s}"`).join(', ')}]`);
  return `add ${pairs.length === 1 ? 'it' : 'them'} under "pricing": { "pairs": { ${entries.join(', ')} } } in the config (docs/pricing.md)`;
}
