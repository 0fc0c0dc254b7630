// Ad-hoc: what `payd serve` does when its upstreams answer badly. Every method's upstream is one
// loopback server answering each request per MODE (429 | 500 | hang | garbage | empty; `closed`: the
// bench's closed loopback ports instead); prints the requests the upstream got and payd's CPU per
// second while idle, after its first 5 s.
// Usage: node --import tsx bench/probes/upstream-noise.ts <mode> [seconds]
import { createServer } from 'node:http';
import { createServer as createTcp } from 'node:net';
import { readFileSync, writeFileSync } from 'node:fs';
import { cpuUsOf, preparePaydDir, startServe } from '../lib/payd-process.ts';

const [mode = '429', secs = '20'] = process.argv.slice(2);
/** Each mode's answer: HTTP status, content type, body (`hang`: none). */
const ANSWERS: Record<string, [number, string, string]> = {
  '429': [429, 'application/json', '{"error":"rate limited"}'],
  '500': [500, 'text/plain', 'oops'],
  garbage: [200, 'application/json', '{"jsonrpc":"2.0","id":1,"result":'],
  empty: [200, 'application/json', '{}'],
};
/** Requests by JSON-RPC method or path (TRON's account in the path folded). */
const hits = new Map<string, number>();
const hit = (k: string) => hits.set(k, (hits.get(k) ?? 0) + 1);
const up = createServer(async (req, res) => {
  let body = '';
  for await (const chunk of req) body += chunk;
  let key = (req.url ?? '').split('?')[0]!.replace(/\/accounts\/[^/]+/, '/accounts/:a');
  try {
    key = JSON.parse(body).method ?? key;
  } catch {
    // a REST call (TronGrid): its path names it
  }
  hit(key);
  const answer = ANSWERS[mode];
  if (!answer) return;
  res.writeHead(answer[0], { 'content-type': answer[1], ...(answer[0] === 429 ? { 'retry-after': '1' } : {}) });
  res.end(answer[2]);
});
await new Promise<void>((r) => up.listen(0, '127.0.0.1', r));
const imap = createTcp((socket) => {
  hit('imap-connect');
  if (mode !== 'hang') socket.destroy();
});
await new Promise<void>((r) => imap.listen(0, '127.0.0.1', r));
const url = `http://127.0.0.1:${(up.address() as any).port}`;
const d = preparePaydDir({ methods: mode === 'closed' ? 'all' : 'documented' });
const cfg = JSON.parse(readFileSync(d.configFile, 'utf8'));
for (const m of mode === 'closed' ? [] : Object.values<any>(cfg.methods)) {
  if (m.rpcUrl) m.rpcUrl = url;
  if (m.apiUrl) m.apiUrl = url;
  if (m.imap) Object.assign(m.imap, { host: '127.0.0.1', port: (imap.address() as any).port, secure: false });
}
writeFileSync(d.configFile, JSON.stringify(cfg, null, 2));
const p = await startServe(d);
// The first 5 s load the methods' libraries; what stays is what follows.
await new Promise((r) => setTimeout(r, 5000));
hits.clear();
const c0 = cpuUsOf(p.pid);
await new Promise((r) => setTimeout(r, Number(secs) * 1000));
const cpu = (cpuUsOf(p.pid) - c0) / 1000;
console.log(`${mode}: payd CPU ${(cpu / Number(secs)).toFixed(1)} ms/s after its first 5 s, RSS ${p.rssMb().toFixed(0)} MB; upstream requests in ${secs} s:`, Object.fromEntries(hits));
await p.stop();
d.close();
process.exit(0);
