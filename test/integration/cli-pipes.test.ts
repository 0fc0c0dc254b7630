// payd's output through pipes, as operators use it: `payd … --json | jq` gets every byte of a
// listing of several MB even when the reader starts late; `payd demo 2>&1 | tee demo.log` and
// `payd serve … | tee` end on Ctrl-C within the shutdown deadline after tee died, and give the
// worker lease back. Real bin/payd processes; the pipes' readers are real processes.
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import Database from 'better-sqlite3';
import { PAYD_BIN, logLines, payd, workdir } from '../helpers/cli.ts';
import { baseConfig, startPayd } from '../helpers/payd.ts';
import { waitFor } from '../helpers/wait.ts';

const exitOf = (c: ChildProcess) => new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((r) => c.on('exit', (code, signal) => r({ code, signal })));

/** Resolves with the exit, or fails after `ms` (a process that hangs fails the test, it does not stall it). */
async function exitWithin(c: ChildProcess, exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>, ms: number, what: string) {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`${what} did not exit within ${ms} ms`)), ms)));
  try {
    return await Promise.race([exited, late]);
  } finally {
    clearTimeout(timer);
    c.kill('SIGKILL');
  }
}

/**
 * `payd <args> | <reader>`: bin/payd's stdout (and stderr with `both`, as `2>&1`) is the write
 * end of a pipe that only `reader` (a shell command) reads.
 */
function pipeline(cwd: string, args: string[], reader: string, o: { both?: boolean } = {}) {
  const sink = spawn('sh', ['-c', reader], { cwd, stdio: ['pipe', 'ignore', 'inherit'] });
  const sinkExit = exitOf(sink);
  const child = spawn(process.execPath, [PAYD_BIN, ...args], { cwd, stdio: ['ignore', sink.stdin!, o.both ? sink.stdin! : 'pipe'] });
  // Only payd holds the write end now: the reader sees EOF when payd exits, payd EPIPE when the reader dies.
  sink.stdin!.destroy();
  let stderr = '';
  child.stderr?.on('data', (d) => (stderr += d));
  return { child, exited: exitOf(child), sink, sinkExit, stderr: () => stderr };
}

/** Copies the one row of `table` into `n` rows in one statement, varying the columns in `vary` by the row number `i`. */
function multiply(db: Database.Database, table: string, n: number, vary: Record<string, string>) {
  const cols = (db.prepare(`select name from pragma_table_info('${table}')`).all() as { name: string }[]).map((c) => c.name);
  const select = cols.map((c) => vary[c] ?? c).join(', ');
  db.prepare(
    `insert into ${table} (${cols.join(', ')}) with recursive seq(i) as (select 1 union all select i + 1 from seq where i < ${n - 1}) select ${select} from ${table}, seq`,
  ).run();
}

test('--json listings of several MB reach a pipe whose reader starts late, whole, and parse (intents list, payments list)', async (t) => {
  const dir = workdir(t);
  const config = baseConfig(dir);
  writeFileSync(join(dir, 'payd.config.json'), JSON.stringify(config));
  // One real intent and one unmatched payment through the services, then copied in SQL (thousands of
  // creates would take minutes on a loaded machine).
  const p = await startPayd({ dir, rawConfig: config, http: false });
  const m = await p.merchant();
  await p.app.intents.create(await p.app.merchants.get(m.clientId), { amount: 499, currency: 'UPI', order_id: 'seed' });
  const now = Date.now();
  await p.app.ledger.ingest({ method: 'UPI', receiver: 'shop@hdfcbank', amountMinor: 12345n, txRef: '900000000000', occurredAt: now, observedAt: now, source: 'imap' });
  await p.app.close();
  const N = 6000;
  const db = new Database(join(dir, 'payd.sqlite'));
  const uuid = `printf('%08x-0000-4000-8000-%012x', i, i)`;
  multiply(db, 'intents', N, { id: uuid, order_id: `'seed-' || i`, created_at: 'created_at - i', status: `'expired'` });
  multiply(db, 'payments', N, { id: uuid, tx_ref: `'9' || printf('%011d', i)`, observed_at: 'observed_at - i' });
  db.close();

  for (const [args, id] of [
    [['intents', 'list', '--limit', '100000', '--json'], 'intent_id'],
    [['payments', 'list', '--limit', '100000', '--json'], 'payment_id'],
  ] as const) {
    const out = join(dir, `${args[0]}.json`);
    // The reader starts a second late, so nearly all of the output waits in payd, not in the pipe (64 KiB).
    const run = pipeline(dir, [...args], `sleep 1; exec cat > ${out}`);
    const { code } = await exitWithin(run.child, run.exited, 120_000, `payd ${args.join(' ')}`);
    assert.equal(code, 0, run.stderr());
    assert.equal((await run.sinkExit).code, 0);
    const text = readFileSync(out, 'utf8');
    assert.ok(text.length > 2_000_000, `${args[0]}: ${text.length} bytes, expected several MB`);
    const rows = JSON.parse(text) as Array<Record<string, unknown>>;
    assert.equal(rows.length, N, `${args[0]}: every row`);
    assert.equal(new Set(rows.map((r) => r[id])).size, N);
  }

  // A reader that stops early (`| head -c 100`): payd ends at once, and says so by its exit code.
  const cut = pipeline(dir, ['intents', 'list', '--limit', '100000', '--json'], 'head -c 100 >/dev/null');
  const { code } = await exitWithin(cut.child, cut.exited, 60_000, 'payd intents list | head -c 100');
  assert.equal(code, 1, 'output was lost: not a success');
});

/** The open worker lease rows of a SQLite database (a clean stop deletes its row). */
const leaseRows = (file: string) => {
  const db = new Database(file, { readonly: true });
  try {
    return (db.prepare('select holder, pid from worker_lease').all() as unknown[]).length;
  } finally {
    db.close();
  }
};

for (const [name, args, dbFile, requests] of [
  ['serve', ['serve', '--port', '0'], 'data/payd.sqlite', false],
  ['demo', ['demo', '--port', '0'], 'data/payd-sandbox.sqlite', false],
  ['serve', ['serve', '--port', '0'], 'data/payd.sqlite', true],
] as const) {
  const meanwhile = requests ? ', answers requests logged into the broken pipe meanwhile' : '';
  test(`payd ${name} 2>&1 | tee, tee dies (Ctrl-C), then SIGINT: payd exits 0 within the 10 s deadline${meanwhile} and releases the worker lease`, async (t) => {
    const dir = workdir(t, { ...baseConfig(''), database: { file: 'data/payd.sqlite' }, methods: {} });
    if (name === 'serve') assert.equal((await payd(['merchant', 'create', '--name', 'Shop', '--json'], { cwd: dir })).code, 0);
    const log = join(dir, 'tee.log');
    const run = pipeline(dir, [...args], `exec tee ${log} >/dev/null`, { both: true });
    t.after(() => {
      run.child.kill('SIGKILL');
      run.sink.kill('SIGKILL');
    });
    // tee creates its file when it starts, which may be after the first poll.
    const lines = () => (existsSync(log) ? logLines(readFileSync(log, 'utf8')) : []);
    const url = await waitFor(async () => lines().find((l) => l.msg === 'payd listening')?.url as string | undefined, 60_000, 'payd listening');
    await waitFor(async () => lines().some((l) => /worker lease acquired/.test(String(l.msg))), 20_000, 'the worker lease');
    assert.equal(leaseRows(join(dir, dbFile)), 1);

    // Ctrl-C reaches tee first: the pipe payd logs to has no reader any more.
    run.sink.kill('SIGINT');
    assert.equal((await run.sinkExit).signal, 'SIGINT');
    // Without requests, the first line into the broken pipe is the shutdown's own (pino's sonic-boom
    // then retried the last line every 100 ms forever, SIGTERM ignored).
    if (requests) for (let i = 0; i < 20; i++) assert.equal((await fetch(`${url}/healthz`)).status, 200);
    await new Promise((r) => setTimeout(r, 300)); // past the log's 25 ms batching

    const t0 = Date.now();
    run.child.kill('SIGINT');
    const { code, signal } = await exitWithin(run.child, run.exited, 20_000, `payd ${name} after SIGINT`);
    const took = Date.now() - t0;
    assert.deepEqual({ code, signal }, { code: 0, signal: null });
    assert.ok(took < 12_000, `exit took ${took} ms`);
    assert.equal(leaseRows(join(dir, dbFile)), 0, 'the worker lease was released');
  });
}
