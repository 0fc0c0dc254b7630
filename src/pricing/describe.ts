import type { PairStatus } from './book.ts';

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
