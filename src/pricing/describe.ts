import type { PairStatus } from './book.ts';
import type { LoneSource } from './index.ts';

/** One pair for people (`payd rates`, `payd doctor`): the rate in use, or why there is none. */
export function describePair(p: PairStatus): { ok: boolean; message: string } {
  const failing = p.sources.filter((s) => s.error || s.outlier).map((s) => `${s.source}: ${s.outlier ? 'ignored (too far from the others)' : s.error}`);
  if (p.rate === null) {
    return { ok: false, message: `no fresh rate: creates priced in it answer 503 RATE_UNAVAILABLE${failing.length ? ` (${failing.join('; ')})` : ' (not fetched yet: is the daemon running?)'}` };
  }
  return { ok: true, message: `${p.rate} from ${p.source}, ${p.ageSeconds} s old${failing.length ? ` (${failing.join('; ')})` : ''}` };
}

/** Every source of the pair, one line each. */
export function describeSources(p: PairStatus): string[] {
  return p.sources.map((s) => `  ${s.source.padEnd(12)} ${(s.rate ?? '-').padEnd(14)} ${s.ageSeconds === null ? 'never fetched' : `${s.ageSeconds} s old`}${s.outlier ? ', ignored: too far from the others' : ''}${s.failures ? `, ${s.failures} failure(s) in a row: ${s.error}` : ''}`);
}

/**
 * What `payd doctor` says of a pair one source alone prices (as of a chain method with one
 * endpoint): nothing checks that source's rate, and how to add a second.
 */
export function describeLoneSource(l: LoneSource): string {
  const add = l.others.length > 0 ? ` (${l.others.join(', ')} serve${l.others.length === 1 ? 's' : ''} it)` : '';
  return `only one rate source: ${l.source} alone sets the price of ${l.uses.map((u) => `${u.method} in ${u.fiats.join(' and ')}`).join(', ')} (add a second to pricing.pairs["${l.pair}"]${add}, so that two must agree)`;
}
