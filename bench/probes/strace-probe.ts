// Ad-hoc: syscalls per request of payd serve vs the ceiling for fetch (strace -c). Not part of npm run bench.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import autocannon from 'autocannon';
import { startChild } from '../lib/child.ts';
import { preparePaydDir, startServe } from '../lib/payd-process.ts';
import type { DurableServerData } from '../lib/servers/durable.ts';

const N = 20_000;
const d = preparePaydDir();
const ceiling = await startChild<DurableServerData>('durable', ['300']);
const p = await startServe(d);
const headers = { ...d.headers, 'content-type': 'application/json' };
const r = await fetch(`${p.url}/api/v1/intents/create-payment`, { method: 'POST', headers, body: JSON.stringify({ amount: 5, currency: 'UPI', order_id: 'x1' }) });
const id = ((await r.json()) as { intent_id: string }).intent_id;
for (const [name, pid, url, path, h] of [
  ['ceiling', ceiling.proc.pid!, ceiling.data.url, `/items/${ceiling.data.itemIds[0]}`, {}],
  ['payd', p.pid, p.url, `/api/v1/intents/${id}`, d.headers],
] as const) {
  await autocannon({ url: url + path, connections: 10, amount: 5000, headers: h });
  const out = `/tmp/perfwork/strace-${name}.txt`;
  const st = spawn('strace', ['-c', '-f', '-p', String(pid), '-o', out]);
  await new Promise((res) => setTimeout(res, 500));
  await autocannon({ url: url + path, connections: 10, amount: N, headers: h });
  st.kill('SIGINT');
  await new Promise((res) => st.on('exit', res));
  console.log(`== ${name} (${N} requests)\n${readFileSync(out, 'utf8')}`);
}
await p.stop();
await ceiling.close();
d.close();
process.exit(0);
