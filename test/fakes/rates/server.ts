import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { binance } from './binance.ts';
import { coinbase } from './coinbase.ts';
import { coindcx } from './coindcx.ts';
import { coingecko } from './coingecko.ts';
import { frankfurter } from './frankfurter.ts';
import type { FakeAnswer, FakeMode, FakeState } from './kit.ts';
import { kraken } from './kraken.ts';
import { wazirx } from './wazirx.ts';

const HANDLERS = { coindcx, wazirx, kraken, coinbase, binance, frankfurter, coingecko: coingecko() } as const;
export type FakeSourceName = keyof typeof HANDLERS;

export interface FakeSource {
  name: FakeSourceName;
  url: string;
  state: FakeState;
  set(mode: FakeMode): void;
}

/** Every rate source on its own loopback port, each serving the recorded shapes (kit.ts modes). */
export async function startFakeRateSources(rates: Partial<Record<FakeSourceName, Record<string, string>>>): Promise<{ sources: Record<FakeSourceName, FakeSource>; close(): Promise<void> }> {
  const servers: Server[] = [];
  const sources = {} as Record<FakeSourceName, FakeSource>;
  for (const name of Object.keys(HANDLERS) as FakeSourceName[]) {
    const state: FakeState = { mode: 'ok', rates: rates[name] ?? {}, requests: [] };
    const handler = HANDLERS[name] as (url: URL, s: FakeState, h: Headers) => FakeAnswer;
    const server = createServer((req, res) => {
      const url = new URL(req.url ?? '/', 'http://fake');
      state.requests.push(url.pathname + url.search);
      const headers = new Headers(Object.entries(req.headers).flatMap(([k, v]) => (typeof v === 'string' ? [[k, v] as [string, string]] : [])));
      const a = handler(url, state, headers);
      res.writeHead(a.status, a.headers ?? {});
      res.end(a.body);
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    servers.push(server);
    sources[name] = { name, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, state, set: (m) => void (state.mode = m) };
  }
  return {
    sources,
    close: async () => {
      for (const s of servers) {
        s.closeAllConnections();
        await new Promise((r) => s.close(r));
      }
    },
  };
}
