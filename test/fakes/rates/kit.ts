/** What every fake rate source shares: its state and one answer. */
export type FakeMode = 'ok' | 'down' | 'rate-limited' | 'error' | 'zero' | 'garbage';

export interface FakeState {
  mode: FakeMode;
  /** Pair ("USDT/INR") → rate as the source writes it (decimal text). */
  rates: Record<string, string>;
  /** Requests seen (path + query). */
  requests: string[];
  /** The time the source says its price is from, ms (a frozen ticker); absent: now. */
  sourceAt?: number;
}

/** The time a source stamps its answer with. */
export const stampOf = (s: FakeState): number => s.sourceAt ?? Date.now();

export interface FakeAnswer {
  status: number;
  headers?: Record<string, string>;
  body: string;
}

export const json = (status: number, body: unknown, headers: Record<string, string> = {}): FakeAnswer => ({ status, headers: { 'content-type': 'application/json', ...headers }, body: typeof body === 'string' ? body : JSON.stringify(body) });

/** The rate a mode serves: "0" (zero), "abc" (garbage), else the configured one. */
export const served = (s: FakeState, pair: string): string | undefined => (s.mode === 'zero' ? '0' : s.mode === 'garbage' ? 'abc' : s.rates[pair]);

/** A gateway's 502 page, as any source behind a CDN answers while down. */
export const downPage = (): FakeAnswer => ({ status: 502, headers: { 'content-type': 'text/html' }, body: '<html><head><title>502 Bad Gateway</title></head><body><center><h1>502 Bad Gateway</h1></center></body></html>' });

export type FakeHandler = (url: URL, s: FakeState) => FakeAnswer;
