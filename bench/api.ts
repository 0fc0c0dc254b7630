// Issue 2: create-payment and fetch throughput/latency of a real payd, against the ceilings
// of a bare h3 + SQLite app measured in the same run (ratios, since the machine is noisy).
import { join } from 'node:path';
import autocannon, { type Request, type Result } from 'autocannon';
import { startChild, type Child } from './child.ts';
import { benchAmount } from './harness.ts';
import { round, type BenchContext, type Row, type SectionResult } from './report.ts';
import type { CeilingServerData } from './servers/ceiling.ts';
import type { PaydServerData } from './servers/payd.ts';

const CONNECTIONS = 10;
const WARMUP_S = 1;
const MEASURE_S = 5;
const SEED = 300;
/** Ceiling and payd alternate this many times per figure, so a noisy neighbour hits both alike. */
const ROUNDS = 2;
const GOALS = { create: 0.7, fetch: 0.8 };

let orderSeq = 0;
const runTag = Date.now().toString(36);

/** One POST whose body is regenerated per request: a unique order_id and a cycling amount. */
function createRequest(path: string, headers: Record<string, string>): Request {
  return {
    method: 'POST',
    path,
    headers: { ...headers, 'content-type': 'application/json' },
    setupRequest: (req) => {
      const n = orderSeq++;
      return { ...req, body: JSON.stringify({ amount: benchAmount(n), currency: 'UPI', order_id: `bench-${runTag}-${n}` }) };
    },
  };
}

/** GETs cycling over existing ids. */
function fetchRequest(pathOf: (id: string) => string, ids: string[], headers: Record<string, string>): Request {
  let i = 0;
  return { method: 'GET', path: pathOf(ids[0]), headers, setupRequest: (req) => ({ ...req, path: pathOf(ids[i++ % ids.length]) }) };
}

async function load(url: string, request: Request): Promise<Result> {
  await autocannon({ url, connections: CONNECTIONS, duration: WARMUP_S, requests: [request] });
  return autocannon({ url, connections: CONNECTIONS, duration: MEASURE_S, requests: [request] });
}

const failures = (r: Result) => r.errors + r.timeouts + r.non2xx;

const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;

/** Rows for one figure: throughput is the mean over rounds, p99 the worst round, the ratio the mean of per-round ratios. */
function pair(name: 'create' | 'fetch', payd: Result[], ceiling: Result[]): Row[] {
  const ratios = payd.map((p, i) => p.requests.average / ceiling[i].requests.average);
  const ratio = mean(ratios);
  const side = (rs: Result[]) => ({
    rps: mean(rs.map((r) => r.requests.average)),
    p99: Math.max(...rs.map((r) => r.latency.p99)),
    note: `p50 ${Math.max(...rs.map((r) => r.latency.p50))} ms, p99 ${Math.max(...rs.map((r) => r.latency.p99))} ms, failed ${rs.reduce((a, r) => a + failures(r), 0)}/${rs.reduce((a, r) => a + r.requests.total, 0)}`,
  });
  const p = side(payd);
  const c = side(ceiling);
  return [
    { metric: `${name}: payd`, value: round(p.rps, 0), unit: 'req/s', note: p.note },
    { metric: `${name}: ceiling`, value: round(c.rps, 0), unit: 'req/s', note: c.note },
    { metric: `${name}: p99 payd/ceiling`, value: round(p.p99 / Math.max(c.p99, 1)), unit: 'x', note: 'p99 is whole ms (autocannon)' },
    { metric: `${name}: throughput payd/ceiling`, value: round(ratio), note: `goal >= ${GOALS[name]}; per round ${ratios.map((r) => round(r)).join(', ')}` },
    { metric: `${name}: goal met`, value: ratio >= GOALS[name] },
  ];
}

export async function apiSection(ctx: BenchContext): Promise<SectionResult> {
  const children: Child<unknown>[] = [];
  try {
    // tsx's loader thread writes a profile too; each run gets its own directory, the main thread's is the largest file.
    const profileDir = ctx.profileDir ? join(ctx.profileDir, `api-${runTag}`) : null;
    const execArgv = profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : [];
    ctx.progress(`api: starting payd and ceiling servers (seeding ${SEED} rows each)`);
    const [payd, ceiling] = await Promise.all([
      startChild<PaydServerData>('payd', [String(SEED)], { execArgv }),
      startChild<CeilingServerData>('ceiling', [String(SEED)]),
    ]);
    children.push(payd, ceiling);

    // Each pair back to back, ceiling first, so both sides see the same background load.
    const r = { createCeil: [] as Result[], createPayd: [] as Result[], fetchCeil: [] as Result[], fetchPayd: [] as Result[] };
    for (let round = 1; round <= ROUNDS; round++) {
      ctx.progress(`api: round ${round}/${ROUNDS}: create then fetch, ceiling then payd (${WARMUP_S}+${MEASURE_S} s each, ${CONNECTIONS} connections)`);
      r.createCeil.push(await load(ceiling.data.url, createRequest('/items', {})));
      r.createPayd.push(await load(payd.data.url, createRequest('/api/v1/intents/create-payment', payd.data.headers)));
      r.fetchCeil.push(await load(ceiling.data.url, fetchRequest((id) => `/items/${id}`, ceiling.data.itemIds, {})));
      r.fetchPayd.push(await load(payd.data.url, fetchRequest((id) => `/api/v1/intents/${id}`, payd.data.intentIds, payd.data.headers)));
    }

    const rows = [...pair('create', r.createPayd, r.createCeil), ...pair('fetch', r.fetchPayd, r.fetchCeil)];
    const notes = [
      `autocannon, ${CONNECTIONS} connections, ${WARMUP_S} s warm-up + ${MEASURE_S} s measured per figure, ${ROUNDS} alternating rounds; servers in child processes, client in this one; loopback`,
      `payd: real SQLite file (${payd.data.dbFile}), rate limit off, silent logger; creates use unique order_ids over 5000 distinct UPI amounts (maxOffsetSteps 1000)`,
      'ceiling: bare h3 via serveHttp, openDatabase pragmas; create = payd\'s valibot body parse + 1 INSERT; fetch = 1 SELECT by primary key',
    ];
    if (profileDir) notes.push(`CPU profile of the payd server in ${profileDir} (summarise: node --import tsx bench/profile.ts ${profileDir})`);
    return { title: 'HTTP API vs bare h3 + SQLite ceiling', rows, notes };
  } finally {
    await Promise.all(children.map((c) => c.close()));
  }
}
