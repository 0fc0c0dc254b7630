// The API on PostgreSQL, beside SQLite. Real `payd serve` processes (compiled dist/,
// the api section's config: every method configured, upstreams on closed loopback ports,
// workers on, rate limit off) and the same autocannon load as the api section: SQLite, one
// node on PostgreSQL, two nodes on one PostgreSQL (the load split over both). PostgreSQL is
// started the way the tests start it (test/helpers/postgres.ts, a throw-away cluster), but durable.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon, { type Request, type Result } from 'autocannon';
import { freshDatabase, startPostgres, type Postgres } from '../../test/helpers/postgres.ts';
import { benchConfig } from '../lib/harness.ts';
import { ensureBuild, PAYD_BIN, preparePaydDir, startServe, type PaydDir, type PaydProcess } from '../lib/payd-process.ts';
import { round, type BenchContext, type Row, type SectionResult } from '../lib/report.ts';
import { seedIntents } from '../lib/seed.ts';
import { UPI_VPA } from '../lib/harness.ts';

/** As the api section: 10 connections, 1 s warm-up + 5 s measured, rounds alternating the set-ups. */
const CONNECTIONS = 10;
const WARMUP_S = 1;
const MEASURE_S = 5;
const ROUNDS = 2;
const FETCH_IDS = 300;
/** Intents in the SQLite shop that `payd db copy` moves (BENCH_COPY_ROWS overrides, for quick runs). */
const COPY_ROWS = Number(process.env.BENCH_COPY_ROWS ?? 200_000);

let orderSeq = 0;
const runTag = Date.now().toString(36);
const amountOf = (n: number) => 1 + (n % 90_000);

function createRequest(headers: Record<string, string>): Request {
  return {
    method: 'POST',
    path: '/api/v1/intents/create-payment',
    headers: { ...headers, 'content-type': 'application/json' },
    setupRequest: (req) => {
      const n = orderSeq++;
      return { ...req, body: JSON.stringify({ amount: amountOf(n), currency: 'UPI', order_id: `bench-pg-${runTag}-${n}` }) };
    },
  };
}

function fetchRequest(ids: string[], headers: Record<string, string>): Request {
  let i = 0;
  const path = (id: string) => `/api/v1/intents/${id}`;
  return { method: 'GET', path: path(ids[0]!), headers, setupRequest: (req) => ({ ...req, path: path(ids[i++ % ids.length]!) }) };
}

interface Measured {
  rps: number;
  p50: number;
  p99: number;
  failed: number;
  total: number;
}

/** The same total connections over `urls` (split evenly), warm-up then measured; requests/s summed. */
async function load(urls: string[], request: () => Request): Promise<Measured> {
  const per = Math.max(1, Math.floor(CONNECTIONS / urls.length));
  await Promise.all(urls.map((url) => autocannon({ url, connections: per, duration: WARMUP_S, requests: [request()] })));
  const rs: Result[] = await Promise.all(urls.map((url) => autocannon({ url, connections: per, duration: MEASURE_S, requests: [request()] })));
  return {
    rps: rs.reduce((a, r) => a + r.requests.average, 0),
    p50: Math.max(...rs.map((r) => r.latency.p50)),
    p99: Math.max(...rs.map((r) => r.latency.p99)),
    failed: rs.reduce((a, r) => a + r.errors + r.timeouts + r.non2xx, 0),
    total: rs.reduce((a, r) => a + r.requests.total, 0),
  };
}

/** A bench directory whose config points at PostgreSQL, with one merchant made by the real CLI. */
function preparePostgresDir(url: string): PaydDir {
  const dir = mkdtempSync(join(tmpdir(), 'payd-bench-pg-'));
  const { database: _sqlite, ...config } = benchConfig(dir) as Record<string, any>;
  config.database = { url };
  config.server = { ...config.server, masterKey: 'payd bench master key' };
  const configFile = join(dir, 'payd.config.json');
  writeFileSync(configFile, JSON.stringify(config, null, 2));
  const r = spawnSync(process.execPath, [PAYD_BIN, '--config', configFile, 'merchant', 'create', '--name', 'Bench shop', '--json'], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`payd merchant create failed: ${r.stderr}`);
  const m = JSON.parse(r.stdout);
  return { dir, configFile, dbFile: '', clientId: m.client_id, headers: { 'x-client-id': m.client_id, 'x-client-secret': m.client_secret }, close: () => rmSync(dir, { recursive: true, force: true }) };
}

async function createSome(url: string, headers: Record<string, string>, n: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    const k = orderSeq++;
    const res = await fetch(`${url}/api/v1/intents/create-payment`, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body: JSON.stringify({ amount: amountOf(k), currency: 'UPI', order_id: `bench-pg-${runTag}-${k}` }) });
    const body = (await res.json()) as { intent_id?: string };
    if (res.status !== 200 || !body.intent_id) throw new Error(`create failed: ${res.status} ${JSON.stringify(body)}`);
    ids.push(body.intent_id);
  }
  return ids;
}

const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;

function rows(name: string, sqlite: Measured[], one: Measured[], two: Measured[]): Row[] {
  const note = (ms: Measured[]) => `p50 ${Math.max(...ms.map((m) => m.p50))} ms, p99 ${Math.max(...ms.map((m) => m.p99))} ms; per round ${ms.map((m) => round(m.rps, 0)).join(', ')}; failed ${ms.reduce((a, m) => a + m.failed, 0)}/${ms.reduce((a, m) => a + m.total, 0)}`;
  const s = mean(sqlite.map((m) => m.rps));
  const o = mean(one.map((m) => m.rps));
  const t = mean(two.map((m) => m.rps));
  return [
    { metric: `${name}: SQLite, one node`, value: round(s, 0), unit: 'req/s', note: note(sqlite) },
    { metric: `${name}: PostgreSQL, one node`, value: round(o, 0), unit: 'req/s', note: note(one) },
    { metric: `${name}: PostgreSQL, two nodes`, value: round(t, 0), unit: 'req/s', note: `${note(two)}; load split over both nodes` },
    { metric: `${name}: PostgreSQL one node / SQLite`, value: round(o / s) },
    { metric: `${name}: PostgreSQL two nodes / one node`, value: round(t / o), note: 'on this machine the nodes, PostgreSQL and the load generator share the same cores' },
  ];
}

export async function pgSection(ctx: BenchContext): Promise<SectionResult> {
  ensureBuild(ctx.progress);
  const dirs: PaydDir[] = [];
  const procs: PaydProcess[] = [];
  let pg: Postgres | null = null;
  try {
    ctx.progress('pg: starting PostgreSQL (initdb + pg_ctl, as the tests do, but crash-safe: fsync on)');
    pg = await startPostgres({ durable: true });
    const sqliteDir = preparePaydDir();
    const pgDir = preparePostgresDir(await freshDatabase(pg.url, 'bench'));
    dirs.push(sqliteDir, pgDir);
    ctx.progress('pg: starting payd serve on SQLite and two on PostgreSQL');
    const onSqlite = await startServe(sqliteDir, { name: 'payd-sqlite' });
    procs.push(onSqlite);
    const nodeA = await startServe(pgDir, { name: 'payd-pg-a' });
    procs.push(nodeA);
    const nodeB = await startServe(pgDir, { name: 'payd-pg-b' });
    procs.push(nodeB);
    await new Promise((r) => setTimeout(r, 2000));

    const sqliteIds = await createSome(onSqlite.url, sqliteDir.headers, FETCH_IDS);
    const pgIds = await createSome(nodeA.url, pgDir.headers, FETCH_IDS);
    const r = { cS: [] as Measured[], c1: [] as Measured[], c2: [] as Measured[], fS: [] as Measured[], f1: [] as Measured[], f2: [] as Measured[] };
    for (let i = 1; i <= ROUNDS; i++) {
      ctx.progress(`pg: round ${i}/${ROUNDS}: create then fetch, each SQLite → PostgreSQL one node → two nodes (${WARMUP_S}+${MEASURE_S} s each, ${CONNECTIONS} connections)`);
      r.cS.push(await load([onSqlite.url], () => createRequest(sqliteDir.headers)));
      r.c1.push(await load([nodeA.url], () => createRequest(pgDir.headers)));
      r.c2.push(await load([nodeA.url, nodeB.url], () => createRequest(pgDir.headers)));
      r.fS.push(await load([onSqlite.url], () => fetchRequest(sqliteIds, sqliteDir.headers)));
      r.f1.push(await load([nodeA.url], () => fetchRequest(pgIds, pgDir.headers)));
      r.f2.push(await load([nodeA.url, nodeB.url], () => fetchRequest(pgIds, pgDir.headers)));
    }
    const codes = [];
    for (const p of procs) codes.push(await p.stop());

    // Moving house: a stopped SQLite shop with COPY_ROWS intents, copied by the real CLI.
    const shop = preparePaydDir();
    dirs.push(shop);
    ctx.progress(`pg: seeding ${COPY_ROWS.toLocaleString('en')} intents, then payd db copy`);
    seedIntents(shop.dbFile, { merchantId: shop.clientId, receiver: UPI_VPA, count: COPY_ROWS, now: Date.now() });
    const into = await freshDatabase(pg.url, 'copy');
    const c0 = performance.now();
    const copy = spawnSync(process.execPath, [PAYD_BIN, '--config', shop.configFile, 'db', 'copy', '--json'], { encoding: 'utf8', env: { ...process.env, PAYD_DB_COPY_TO: into } });
    const copyS = (performance.now() - c0) / 1000;
    if (copy.status !== 0) throw new Error(`payd db copy failed: ${copy.stderr}`);
    const copied = (JSON.parse(copy.stdout) as { tables: { rows: number }[] }).tables.reduce((a, t) => a + t.rows, 0);
    return {
      title: 'HTTP API on PostgreSQL: one node and two nodes on one PostgreSQL, beside SQLite',
      rows: [
        ...rows('create', r.cS, r.c1, r.c2),
        ...rows('fetch', r.fS, r.f1, r.f2),
        { metric: 'payd exit codes after SIGTERM', value: codes.join(', ') },
        { metric: `db copy: ${copied.toLocaleString('en')} rows`, value: round(copyS, 1), unit: 's', note: `${round(copied / copyS, 0)} rows/s for the whole command (start, migrate the target, copy in one transaction, verify counts); the shop: ${COPY_ROWS.toLocaleString('en')} seeded intents and what comes with them` },
      ],
      notes: [
        `autocannon in the bench process, ${CONNECTIONS} connections in all (two nodes: ${CONNECTIONS / 2} each), ${WARMUP_S} s warm-up + ${MEASURE_S} s measured per figure, ${ROUNDS} rounds alternating the set-ups; loopback`,
        'payd: `bin/payd --config <file> serve --port 0` (dist/), the api section\'s config; PostgreSQL: database.url, pool 10, statement timeout 5 s; the second node stands by for the worker lease during the one-node figures',
        'PostgreSQL 15 from Debian, started like the tests start it (initdb + pg_ctl in a temp dir) but with its crash-safe defaults (fsync, synchronous_commit, full_page_writes on), as SQLite runs with synchronous=FULL; all other settings are initdb defaults (shared_buffers 128 MB)',
        'one machine: the payd nodes, PostgreSQL and the load generator share its cores, so two nodes cannot add CPU; on separate machines they would',
      ],
    };
  } finally {
    for (const p of procs) await p.stop().catch(() => {});
    for (const d of dirs) d.close();
    await pg?.stop();
  }
}
