// The API as operators run it. Real `payd serve` processes (compiled dist/, default
// logging to a file, every method configured, workers on) against the durable one-INSERT server
// in its own process on the same libraries (h3 on node:http, valibot, better-sqlite3 with payd's
// pragmas, statements prepared once; create also with both on tmpfs, where fsync is cheap), and
// for fetches also against a bare SELECT server built with Kysely. Both get the same requests
// (amounts spread over 1.00–99,000.00) and keep one database each that grows round after round.
// A/B interleaved rounds, fresh processes each round (min / median / max over them); plus
// start-up time, RSS, and the same load on a payd whose database holds 1,000,000 intents.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon, { type Request, type Result } from 'autocannon';
import { startChild, type Child } from '../lib/child.ts';
import { cpuUsOf, ensureBuild, machineTicks, preparePaydDir, startServe, stealShare, type PaydDir, type PaydProcess } from '../lib/payd-process.ts';
import { round, type BenchContext, type Row, type SectionResult } from '../lib/report.ts';
import { seedIntents } from '../lib/seed.ts';
import type { CeilingServerData } from '../lib/servers/ceiling.ts';
import type { DurableServerData } from '../lib/servers/durable.ts';
import { UPI_VPA } from '../lib/harness.ts';

const CONNECTIONS = 10;
/** V8 optimises a fresh process's request path over its first ~6 s of load (`--trace-opt`: ~300 optimisations in the first 3 s, 20–60 in the next 3, then a few); a 1 s warm-up measured part of that. */
const WARMUP_S = 3;
const MEASURE_S = 5;
/**
 * A measured run in which the hypervisor gave more than this share of the machine to other guests
 * (steal) is run again on the same process, at most MAX_RUNS times in all, and the run with the
 * least steal is kept: on this shared VM a round's steal and its server's and load generator's CPU
 * per request rise together, so steal, not the process, would decide the process's figure.
 */
const STEAL_LIMIT = 0.03;
const MAX_RUNS = 3;
const FETCH_IDS = 300;
/** Every figure alternates ceiling / payd / payd on the big database this many times, fresh processes each time. */
const ROUNDS = 5;
/** A disk where fsync costs nothing (tmpfs), beside the temp dir's real one: create is measured on both. */
const CHEAP_FSYNC_DIR = '/dev/shm';
/** Overridable for quick iterations (BENCH_BIG=50000 BENCH_CREATES=5000 npm run bench -- api); docs/performance.md's figures use the defaults. */
const BIG = Number(process.env.BENCH_BIG ?? 1_000_000);
const CREATES_FOR_RSS = Number(process.env.BENCH_CREATES ?? 100_000);
/** "After start" is read twice: 2 s after listening, and once the idle heap has settled. */
const SETTLED_MS = 15_000;
/**
 * The goals: create ≥ 1.0× the durable one-INSERT server (on a disk where fsync is dear and on
 * one where it is cheap); fetch ≥ 0.9× its prepared SELECT; fresh processes within 10 % of each
 * other (max/min of payd's throughput over the rounds). The Kysely-built SELECT server is reported beside it.
 */
const GOALS = { create: 1.0, fetch: 0.9, p99: 1.5, spread: 1.1, rssStartMb: 90, rssAfterMb: 150 };

let orderSeq = 0;
const runTag = Date.now().toString(36);
/**
 * What shops send: prices with paise, spread over ₹1.00–99,000.00 (a Weyl sequence, so every run
 * asks the same), landing all over the amount indexes. The old whole rupees 1…90,000 in order
 * appended to them instead and never hit a held amount: a cheaper create than operators see.
 */
const amountOf = (n: number) => (100 + ((n * 7_919_777) % 9_899_901)) / 100;

function createRequest(path: string, headers: Record<string, string>): Request {
  return {
    method: 'POST',
    path,
    headers: { ...headers, 'content-type': 'application/json' },
    setupRequest: (req) => {
      const n = orderSeq++;
      return { ...req, body: JSON.stringify({ amount: amountOf(n), currency: 'UPI', order_id: `bench-${runTag}-${n}` }) };
    },
  };
}

function fetchRequest(pathOf: (id: string) => string, ids: string[], headers: Record<string, string>): Request {
  let i = 0;
  return { method: 'GET', path: pathOf(ids[0]), headers, setupRequest: (req) => ({ ...req, path: pathOf(ids[i++ % ids.length]) }) };
}

/** A measured run, with latency percentiles to the microsecond, the server's CPU time per request and the machine's steal share. */
type Measured = Result & { p50Ms: number; p99Ms: number; cpuUs: number; steal: number };

/**
 * Warm-up, then the measured run. autocannon's own latency histogram counts whole milliseconds
 * (a 0.6 ms reply counts as 0), too coarse for sub-millisecond replies and a p99 ratio goal:
 * the percentiles come from its per-response times instead (successful replies only).
 */
async function load(url: string, request: Request, pid: number): Promise<Measured> {
  await autocannon({ url, connections: CONNECTIONS, duration: WARMUP_S, requests: [request] });
  let kept: Measured | undefined;
  for (let run = 1; run <= MAX_RUNS && !(kept && kept.steal <= STEAL_LIMIT); run++) {
    const measured = await measure(url, request, pid);
    if (!kept || measured.steal < kept.steal) kept = measured;
  }
  return kept!;
}

async function measure(url: string, request: Request, pid: number): Promise<Measured> {
  const times: number[] = [];
  const cpu0 = cpuUsOf(pid);
  const machine0 = machineTicks();
  const run = autocannon({ url, connections: CONNECTIONS, duration: MEASURE_S, requests: [request] });
  run.on('response', (_client, status, _bytes, ms) => {
    if (status < 300) times.push(ms);
  });
  const result = await run;
  const cpuUs = (cpuUsOf(pid) - cpu0) / Math.max(1, result.requests.total);
  times.sort((a, b) => a - b);
  const at = (q: number) => times[Math.min(times.length - 1, Math.ceil(q * times.length) - 1)] ?? NaN;
  return Object.assign(result, { p50Ms: at(0.5), p99Ms: at(0.99), cpuUs, steal: stealShare(machine0, machineTicks()) });
}

const failures = (r: Result) => r.errors + r.timeouts + r.non2xx;
const median = (xs: number[]) => {
  const sorted = [...xs].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};
/** min / median / max, the spread a slow process cannot hide in. */
const spread = (xs: number[], digits = 2) => `min ${round(Math.min(...xs), digits)}, median ${round(median(xs), digits)}, max ${round(Math.max(...xs), digits)}`;
const rps = (rs: Result[]) => median(rs.map((r) => r.requests.average));
const p99 = (rs: Measured[]) => Math.max(...rs.map((r) => r.p99Ms));
const failed = (rs: Result[]) => `failed ${rs.reduce((a, r) => a + failures(r), 0)}/${rs.reduce((a, r) => a + r.requests.total, 0)}`;
const ms = (v: number) => round(v, 2);
const cpu = (rs: Measured[]) => median(rs.map((r) => r.cpuUs));
const detail = (rs: Measured[]) => {
  const each = rs.map((r) => r.requests.average);
  const cpus = rs.map((r) => r.cpuUs);
  return `fresh processes: ${spread(each, 0)} req/s (max/min ${round(Math.max(...each) / Math.min(...each))}); p50 ${ms(Math.max(...rs.map((r) => r.p50Ms)))} ms, p99 ${ms(p99(rs))} ms; server CPU ${spread(cpus, 1)} µs/request (max/min ${round(Math.max(...cpus) / Math.min(...cpus))}); per round ${each.map((r) => round(r, 0)).join(', ')}; steal ${rs.map((r) => round(100 * r.steal, 1)).join(', ')} %; ${failed(rs)}`;
};

/**
 * Rows for one figure against one ceiling: throughput the median over rounds (one fresh process
 * each, min and max beside it), p99 the worst round, the ratio the median of per-round ratios.
 * `goal` undefined: reported only.
 */
function pair(name: string, goal: number | undefined, payd: Measured[], ceiling: Measured[], o: { paydRow?: boolean } = {}): Row[] {
  const ratios = payd.map((p, i) => p.requests.average / ceiling[i].requests.average);
  const ratio = median(ratios);
  const p99Ratio = p99(payd) / p99(ceiling);
  const each = payd.map((r) => r.requests.average);
  const processSpread = Math.max(...each) / Math.min(...each);
  const perRound = `${spread(ratios)}; per round ${ratios.map((r) => round(r)).join(', ')}`;
  return [
    ...(o.paydRow === false ? [] : [{ metric: `${name}: payd`, value: round(rps(payd), 0), unit: 'req/s', note: detail(payd) }]),
    ...(o.paydRow === false ? [] : [{ metric: `${name}: payd's fresh processes, max/min`, value: round(processSpread), note: `goal <= ${GOALS.spread}; ${spread(each, 0)} req/s` }]),
    { metric: `${name}: ceiling`, value: round(rps(ceiling), 0), unit: 'req/s', note: detail(ceiling) },
    { metric: `${name}: throughput payd/ceiling`, value: round(ratio), note: goal === undefined ? `no goal; ${perRound}` : `goal >= ${goal}; ${perRound}` },
    // Throughput reads near 1 whenever the load generator, not the server, is the bottleneck
    // (a slow spell of the machine); the ratio of server CPU per request does not.
    { metric: `${name}: server CPU ceiling/payd`, value: round(cpu(ceiling) / cpu(payd)), note: `${round(cpu(payd), 1)} vs ${round(cpu(ceiling), 1)} µs of CPU per request (median of rounds); 1 = as cheap as the ceiling` },
    { metric: `${name}: p99 payd/ceiling`, value: round(p99Ratio), unit: 'x', note: `goal <= ${GOALS.p99}x; ${ms(p99(payd))} vs ${ms(p99(ceiling))} ms (worst round of each)` },
    ...(goal === undefined ? [] : [{ metric: `${name}: goals met`, value: ratio >= goal && p99Ratio <= GOALS.p99 && processSpread <= GOALS.spread }]),
  ];
}

async function settle(ms: number) {
  await new Promise((r) => setTimeout(r, ms));
}

/** FETCH_IDS intents created through the API, to fetch afterwards. */
async function createSome(url: string, headers: Record<string, string>, n: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    const k = orderSeq++;
    const res = await fetch(`${url}/api/v1/intents/create-payment`, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json' },
      body: JSON.stringify({ amount: amountOf(k), currency: 'UPI', order_id: `bench-${runTag}-${k}` }),
    });
    const body = (await res.json()) as { intent_id?: string };
    if (res.status !== 200 || !body.intent_id) throw new Error(`create failed: ${res.status} ${JSON.stringify(body)}`);
    ids.push(body.intent_id);
  }
  return ids;
}

export async function apiSection(ctx: BenchContext): Promise<SectionResult> {
  ensureBuild(ctx.progress);
  const dirs: PaydDir[] = [];
  const procs: PaydProcess[] = [];
  let ceiling: Child<DurableServerData> | null = null;
  let kysely: Child<CeilingServerData> | null = null;
  // The ceiling's database lives as long as payd's: both grow over the rounds.
  const ceilingDir = mkdtempSync(join(tmpdir(), 'payd-bench-durable-'));
  const cheapCeilingDir = mkdtempSync(join(CHEAP_FSYNC_DIR, 'payd-bench-durable-'));
  try {
    const profileDir = ctx.profileDir ? join(ctx.profileDir, `api-${runTag}`) : null;
    const execArgv = profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : [];

    const empty = preparePaydDir();
    const big = preparePaydDir();
    const none = preparePaydDir({ methods: 'none' });
    const cheap = preparePaydDir({ parent: CHEAP_FSYNC_DIR });
    dirs.push(empty, big, none, cheap);
    ctx.progress(`api: seeding ${BIG.toLocaleString('en')} intents with direct SQL`);
    const seeded = seedIntents(big.dbFile, { merchantId: big.clientId, receiver: UPI_VPA, count: BIG, now: Date.now() });
    ctx.progress(`api: seeded in ${round(seeded.ms / 1000, 1)} s`);

    ctx.progress('api: starting payd serve (empty, big, no methods)');
    const pNone = await startServe(none, { name: 'payd-none' });
    procs.push(pNone);
    const first = await startServe(empty, { execArgv });
    procs.push(first);
    const listeningAt = performance.now();
    await settle(2000); // sources have tried their (closed) upstreams once
    const rssStart = first.rssMb();
    const rssNone = pNone.rssMb();
    const codes = [await pNone.stop()];
    const firstBig = await startServe(big, { name: 'payd-big' });
    procs.push(firstBig);
    await settle(1000);
    const rssBigStart = firstBig.rssMb();

    // V8's memory reducer returns the start-up garbage once the process has been quiet for ~8 s.
    await settle(SETTLED_MS - (performance.now() - listeningAt));
    const rssSettled = first.rssMb();

    const emptyIds = await createSome(first.url, empty.headers, FETCH_IDS);
    const bigIds = seeded.sampleIds;

    // Fresh processes every round, ceiling and payd alike: identical `payd serve` processes were
    // seen to differ by up to 25 % in CPU per fetch, consistently over 8 rounds (bench/probes/ab.ts).
    // Each round then draws its own processes, and one unlucky process weighs one round, not all.
    // The databases stay: each round's creates land in what the rounds before wrote.
    let ceilingIds: string[] = [];
    const r = { cC: [] as Measured[], cE: [] as Measured[], cB: [] as Measured[], sC: [] as Measured[], sE: [] as Measured[], fC: [] as Measured[], fK: [] as Measured[], fE: [] as Measured[], fB: [] as Measured[] };
    for (let i = 1; i <= ROUNDS; i++) {
      ctx.progress(`api: round ${i}/${ROUNDS}: fresh processes; create then fetch, each ceiling → payd → payd with ${BIG.toLocaleString('en')} intents (${WARMUP_S}+${MEASURE_S} s each, ${CONNECTIONS} connections)`);
      ceiling = await startChild<DurableServerData>('durable', [String(i === 1 ? FETCH_IDS : 0), join(ceilingDir, 'durable.sqlite')]);
      if (i === 1) ceilingIds = ceiling.data.itemIds;
      kysely = await startChild<CeilingServerData>('ceiling', [String(FETCH_IDS)]);
      const pEmpty = i === 1 ? first : await startServe(empty, { execArgv });
      const pBig = i === 1 ? firstBig : await startServe(big, { name: 'payd-big' });
      procs.push(pEmpty, pBig);
      r.cC.push(await load(ceiling.data.url, createRequest('/items', {}), ceiling.proc.pid!));
      r.cE.push(await load(pEmpty.url, createRequest('/api/v1/intents/create-payment', empty.headers), pEmpty.pid));
      r.cB.push(await load(pBig.url, createRequest('/api/v1/intents/create-payment', big.headers), pBig.pid));
      r.fC.push(await load(ceiling.data.url, fetchRequest((id) => `/items/${id}`, ceilingIds, {}), ceiling.proc.pid!));
      r.fK.push(await load(kysely.data.url, fetchRequest((id) => `/items/${id}`, kysely.data.itemIds, {}), kysely.proc.pid!));
      r.fE.push(await load(pEmpty.url, fetchRequest((id) => `/api/v1/intents/${id}`, emptyIds, empty.headers), pEmpty.pid));
      r.fB.push(await load(pBig.url, fetchRequest((id) => `/api/v1/intents/${id}`, bigIds, big.headers), pBig.pid));
      await ceiling.close();
      await kysely.close();
      ceiling = kysely = null;
      codes.push(await pEmpty.stop(), await pBig.stop());
      // Create where fsync costs nothing: both servers on tmpfs, so the request path is all that differs.
      ceiling = await startChild<DurableServerData>('durable', ['0', join(cheapCeilingDir, 'durable.sqlite')]);
      const pCheap = await startServe(cheap, { name: 'payd-cheap' });
      procs.push(pCheap);
      r.sC.push(await load(ceiling.data.url, createRequest('/items', {}), ceiling.proc.pid!));
      r.sE.push(await load(pCheap.url, createRequest('/api/v1/intents/create-payment', cheap.headers), pCheap.pid));
      await ceiling.close();
      ceiling = null;
      codes.push(await pCheap.stop());
    }

    // CREATES_FOR_RSS creates by one fresh payd on the "empty" database, then its RSS.
    ctx.progress(`api: ${CREATES_FOR_RSS.toLocaleString('en')} creates by a fresh payd serve`);
    const filler = await startServe(empty, { name: 'payd-fill' });
    procs.push(filler);
    const t0 = performance.now();
    const fill = await autocannon({ url: filler.url, connections: 50, amount: CREATES_FOR_RSS, requests: [createRequest('/api/v1/intents/create-payment', empty.headers)] });
    const fillS = (performance.now() - t0) / 1000;
    await settle(1000);
    const rssAfter = filler.rssMb();
    codes.push(await filler.stop());

    const rows: Row[] = [
      ...pair('create', GOALS.create, r.cE, r.cC),
      ...pair(`create, fsync cheap (${CHEAP_FSYNC_DIR})`, GOALS.create, r.sE, r.sC),
      ...pair('fetch', GOALS.fetch, r.fE, r.fC),
      ...pair('fetch vs Kysely SELECT', undefined, r.fE, r.fK, { paydRow: false }),
      { metric: `create, ${BIG.toLocaleString('en')} intents in the db`, value: round(rps(r.cB), 0), unit: 'req/s', note: detail(r.cB) },
      { metric: `create: big-db / empty-db`, value: round(rps(r.cB) / rps(r.cE)), note: 'cost must not grow with the data (1 = same)' },
      { metric: `fetch, ${BIG.toLocaleString('en')} intents in the db`, value: round(rps(r.fB), 0), unit: 'req/s', note: detail(r.fB) },
      { metric: `fetch: big-db / empty-db`, value: round(rps(r.fB) / rps(r.fE)), note: 'cost must not grow with the data (1 = same)' },
      { metric: 'start-up: spawn → listening', value: round(first.startMs, 0), unit: 'ms', note: `big-db payd: ${round(firstBig.startMs, 0)} ms; no methods: ${round(pNone.startMs, 0)} ms` },
      { metric: 'RSS after start, every method', value: round(rssStart, 0), unit: 'MB', note: `goal <= ${GOALS.rssStartMb} MB; 2 s after listening` },
      { metric: 'RSS after start, settled', value: round(rssSettled, 0), unit: 'MB', note: `goal <= ${GOALS.rssStartMb} MB; same process ${SETTLED_MS / 1000} s after listening, idle (V8's memory reducer has run)` },
      { metric: 'RSS after start, no method', value: round(rssNone, 0), unit: 'MB', note: 'same daemon, no payment method configured (no chain/IMAP library loaded)' },
      { metric: `RSS after start, ${BIG.toLocaleString('en')}-intent db`, value: round(rssBigStart, 0), unit: 'MB' },
      { metric: `RSS after ${CREATES_FOR_RSS.toLocaleString('en')} creates`, value: round(rssAfter, 0), unit: 'MB', note: `goal <= ${GOALS.rssAfterMb} MB; one fresh process, ${CREATES_FOR_RSS.toLocaleString('en')} creates (50 connections) in ${round(fillS, 1)} s (${round(CREATES_FOR_RSS / fillS, 0)}/s), ${failures(fill)} failed` },
      { metric: 'memory goals met', value: rssStart <= GOALS.rssStartMb && rssAfter <= GOALS.rssAfterMb, note: `settled: ${rssSettled <= GOALS.rssStartMb && rssAfter <= GOALS.rssAfterMb ? 'yes' : 'no'}` },
      { metric: 'payd exit codes after SIGTERM', value: codes.join(', ') },
    ];
    const notes = [
      `autocannon in the bench process, ${CONNECTIONS} connections, ${WARMUP_S} s warm-up + ${MEASURE_S} s measured per figure (measured again, up to ${MAX_RUNS} runs in all, while the machine's steal exceeds ${STEAL_LIMIT * 100} %; the run with the least is kept), ${ROUNDS} rounds alternating ceiling / payd / payd on the big db (and create on tmpfs), each round with freshly started processes, so each figure's min / median / max is over ${ROUNDS} fresh payd processes; loopback`,
      'payd: `bin/payd --config <file> serve --port 0` (dist/), log level info to a file (one JSON line per request), every method configured with upstreams on closed loopback ports, workers on, rate limit off',
      `big-db: ${BIG.toLocaleString('en')} past intents (expired/settled) and 90,000 expired amount reservations seeded with direct SQL in ${round(seeded.ms / 1000, 1)} s`,
      "create and fetch ceiling: the durable one-INSERT server (bench/lib/servers/durable.ts), its own process; h3 through payd's serveHttp, payd's openSqlite (WAL, synchronous=FULL), statements prepared once; create = payd's valibot body parse + 1 INSERT (one fsync each); fetch = 1 SELECT by primary key; no auth, no log; its database kept across rounds like payd's",
      "'fetch vs Kysely SELECT': the bare SELECT server the earlier 0.8× goal was set against (bench/lib/servers/ceiling.ts): the same h3 and database, the SELECT by primary key built by Kysely as an idiomatic app writes it; no auth, no log",
      'requests: the same for both; amounts spread over 1.00–99,000.00 with paise, a fresh order_id each',
    ];
    if (profileDir) notes.push(`CPU profile of the payd server in ${profileDir} (summarise: node --import tsx bench/lib/profile.ts ${profileDir})`);
    return { title: 'HTTP API: payd serve vs bare h3 + SQLite ceiling; start-up and memory', rows, notes };
  } finally {
    for (const p of procs) await p.stop().catch(() => {});
    await ceiling?.close();
    await kysely?.close();
    for (const d of dirs) d.close();
    rmSync(ceilingDir, { recursive: true, force: true });
    rmSync(cheapCeilingDir, { recursive: true, force: true });
  }
}
