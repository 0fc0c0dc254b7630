/**
 * A JSON-RPC proxy on loopback in front of a real node (anvil), standing for a provider:
 * it records every call, and on request refuses `eth_getLogs` ranges above `maxRange` blocks the
 * way a provider does (`refusal`, each as test/fixtures/chains/REAL-EVM.md §1 records it; default
 * Alchemy's free tier: HTTP 400, -32600, a suggested inclusive range), refuses filters without a
 * contract address, serves a head `behind` blocks old, cannot resolve `finalized`, invents a final block
 * ahead of the chain, or adds logs of its own.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';

/** How a provider words a getLogs range refusal (REAL-EVM.md §1). */
export type RangeRefusal = 'alchemy' | 'infura-results' | 'infura-cap' | 'quicknode';

/** The refusal of `from`..`to` (inclusive) by a provider capping ranges at `max` blocks: [HTTP status, JSON-RPC error]. */
function refusalOf(shape: RangeRefusal, from: bigint, to: bigint, max: number): [number, { code: number; message: string }] {
  switch (shape) {
    case 'alchemy':
      return [400, { code: -32600, message: `You can make eth_getLogs requests with up to a ${max} block range. Based on your parameters, this block range should work: [0x${from.toString(16)}, 0x${(from + BigInt(max) - 1n).toString(16)}]` }];
    // Infura's results cap, the bare form: no range to go by.
    case 'infura-results':
      return [200, { code: -32005, message: 'query returned more than 10000 results' }];
    case 'infura-cap':
      return [200, { code: -32602, message: `range ${to - from + 1n} exceeds limit of ${max}` }];
    case 'quicknode':
      return [413, { code: -32614, message: `eth_getLogs is limited to a ${max.toLocaleString('en-US')} range` }];
  }
}

export interface ProxyOptions {
  maxRange?: number;
  /** The wording of a `maxRange` refusal (default Alchemy's). */
  refusal?: RangeRefusal;
  refuseTopicOnly?: boolean;
  /** Answer `finalized`/`latest` as they were this many blocks ago (an endpoint that lags). */
  behind?: number;
  /**
   * Answer `finalized` with an invented block this many blocks past the real one, dated that many
   * `blockSeconds` later (its number and time agree with each other, not with the wall clock).
   */
  finalizedAhead?: { blocks: number; blockSeconds: number };
  /** A node that cannot resolve the `finalized` tag, answering as bsc-erigon does (an error) or Nethermind and reth (null): REAL-EVM.md §3. */
  finalizedTag?: 'error' | 'null';
  /** Each getLogs answer waits this long (a slow provider: a backlog takes a while). */
  getLogsDelayMs?: number;
  /** Every answer waits this long (a slower provider: one with the same weight is preferred to it). */
  delayMs?: number;
  /** Logs a lying or broken provider adds to every getLogs answer whose range covers their block. */
  extraLogs?: Record<string, unknown>[];
  /** Answer every call with HTTP 503 (a provider that is down). */
  down?: boolean;
  /** Transaction hashes (lower case) whose logs a withholding provider leaves out of its getLogs answers (its receipts stay honest). */
  withhold?: string[];
}

export interface EvmProxy {
  url: string;
  calls: { method: string; params: any[] }[];
  refused: number;
  options: ProxyOptions;
  close(): Promise<void>;
}

const readBody = async (req: IncomingMessage): Promise<string> => {
  let s = '';
  for await (const chunk of req) s += chunk;
  return s;
};

export async function startEvmProxy(upstream: string, options: ProxyOptions = {}): Promise<EvmProxy> {
  const calls: EvmProxy['calls'] = [];
  const forward = async (body: unknown) => {
    const res = await fetch(upstream, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    return (await res.json()) as { result?: any; error?: unknown };
  };
  const self: EvmProxy = { url: '', calls, refused: 0, options, close: async () => {} };
  const server: Server = createServer(async (req, res) => {
    const reply = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    try {
      const call = JSON.parse(await readBody(req)) as { id: number; method: string; params: any[] };
      calls.push({ method: call.method, params: call.params });
      const o = self.options;
      if (o.down) return reply(503, { jsonrpc: '2.0', id: call.id, error: { code: -32603, message: 'service unavailable' } });
      if (o.delayMs) await new Promise((r) => setTimeout(r, o.delayMs));
      if (call.method === 'eth_getLogs') {
        if (o.getLogsDelayMs) await new Promise((r) => setTimeout(r, o.getLogsDelayMs));
        const f = call.params[0] ?? {};
        if (o.refuseTopicOnly && (f.address === undefined || (Array.isArray(f.address) && f.address.length === 0))) {
          self.refused += 1;
          return reply(400, { jsonrpc: '2.0', id: call.id, error: { code: -32600, message: 'eth_getLogs without an address is not served' } });
        }
        const from = BigInt(f.fromBlock);
        const to = BigInt(f.toBlock);
        if (o.maxRange !== undefined && to - from + 1n > BigInt(o.maxRange)) {
          self.refused += 1;
          const [status, error] = refusalOf(o.refusal ?? 'alchemy', from, to, o.maxRange);
          return reply(status, { jsonrpc: '2.0', id: call.id, error });
        }
      }
      if (call.method === 'eth_getLogs' && o.withhold?.length) {
        const answer = await forward(call);
        const kept = (answer.result ?? []).filter((l: { transactionHash: string }) => !o.withhold!.includes(l.transactionHash.toLowerCase()));
        return reply(200, { ...answer, result: kept });
      }
      if (call.method === 'eth_getLogs' && o.extraLogs?.length) {
        const answer = await forward(call);
        const from = BigInt(call.params[0].fromBlock);
        const to = BigInt(call.params[0].toBlock);
        const extra = o.extraLogs.filter((l) => BigInt(l.blockNumber as string) >= from && BigInt(l.blockNumber as string) <= to);
        return reply(200, { ...answer, result: [...(answer.result ?? []), ...extra] });
      }
      if (o.finalizedTag && call.method === 'eth_getBlockByNumber' && call.params[0] === 'finalized') {
        return reply(200, o.finalizedTag === 'null' ? { jsonrpc: '2.0', id: call.id, result: null } : { jsonrpc: '2.0', id: call.id, error: { code: -39001, message: 'Unknown block' } });
      }
      if (o.finalizedAhead && call.method === 'eth_getBlockByNumber' && call.params[0] === 'finalized') {
        const real = (await forward(call)).result;
        const { blocks, blockSeconds } = o.finalizedAhead;
        const invented = { ...real, number: `0x${(BigInt(real.number) + BigInt(blocks)).toString(16)}`, hash: `0x${'ab'.repeat(32)}`, timestamp: `0x${(BigInt(real.timestamp) + BigInt(Math.round(blocks * blockSeconds))).toString(16)}` };
        return reply(200, { jsonrpc: '2.0', id: call.id, result: invented });
      }
      if (o.behind && call.method === 'eth_blockNumber') {
        const latest = BigInt((await forward(call)).result);
        const n = latest - BigInt(o.behind);
        return reply(200, { jsonrpc: '2.0', id: call.id, result: `0x${(n < 0n ? 0n : n).toString(16)}` });
      }
      if (o.behind && call.method === 'eth_getBlockByNumber' && (call.params[0] === 'finalized' || call.params[0] === 'latest')) {
        const head = (await forward(call)).result;
        const n = BigInt(head.number) - BigInt(o.behind);
        return reply(200, await forward({ ...call, params: [`0x${(n < 0n ? 0n : n).toString(16)}`, call.params[1]] }));
      }
      return reply(200, await forward(call));
    } catch (err) {
      reply(502, { jsonrpc: '2.0', id: null, error: { code: -32603, message: String(err) } });
    }
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  self.url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  // A payd still polling keeps its connections busy: close them, or close() waits for it.
  self.close = () =>
    new Promise((r) => {
      server.close(() => r());
      server.closeAllConnections();
    });
  return self;
}
