// The error table of docs/api.md, run as printed: every "try it" curl goes to a real `payd demo`
// (a child process) with BASE, CLIENT_ID, CLIENT_SECRET and AUTH set exactly as docs/api.md
// says, in bash, and must answer with the row's code.
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { PAYD_BIN } from '../helpers/cli.ts';

const DOC = readFileSync(new URL('../../docs/api.md', import.meta.url), 'utf8');

/** The rows of the table under "### Errors": code and the first shell command of its "try it" cell. */
function errorRows(): { code: string; command: string }[] {
  const section = DOC.slice(DOC.indexOf('### Errors'), DOC.indexOf('### Hosted checkout'));
  const rows: { code: string; command: string }[] = [];
  for (const line of section.split('\n')) {
    const m = /^\| `([A-Z_]+)` \|/.exec(line);
    if (!m) continue;
    const cells = line.replace(/\\\|/g, '\u0000').split('|').map((c) => c.replace(/\u0000/g, '|').trim());
    const tryIt = cells[cells.length - 2];
    const command = /`((?:curl|head) [^`]+)`/.exec(tryIt)?.[1];
    if (command) rows.push({ code: m[1], command });
  }
  return rows;
}

async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as AddressInfo).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

const sh = (script: string) =>
  new Promise<string>((resolve) => execFile('bash', ['-c', script], { timeout: 20_000 }, (_err, stdout) => resolve(String(stdout))));

test('every runnable error example in docs/api.md answers its code against `payd demo`, in bash as printed', async (t) => {
  const rows = errorRows();
  const codes = rows.map((r) => r.code);
  for (const c of ['AUTH_INVALID_HEADERS', 'AUTH_INVALID_SECRET', 'INVALID_REQUEST', 'METHOD_UNSUPPORTED', 'AMOUNT_OUT_OF_RANGE', 'ORDER_ID_CONFLICT', 'INTENT_NOT_FOUND', 'PAYLOAD_TOO_LARGE', 'NOT_FOUND', 'METHOD_NOT_ALLOWED']) {
    assert.ok(codes.includes(c), `docs/api.md has a runnable example for ${c}`);
  }
  const setup = /```sh\n(BASE=[^\n]+\nAUTH=\([^\n]+\))\n```/.exec(DOC.slice(DOC.indexOf('### Errors')))?.[1];
  assert.ok(setup, 'docs/api.md shows how to set BASE and AUTH');

  const dir = mkdtempSync(join(tmpdir(), 'payd-readme-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const port = await freePort();
  const demo = spawn(process.execPath, [PAYD_BIN, 'demo', '--port', String(port)], { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
  t.after(() => demo.kill('SIGKILL'));
  let banner = '';
  demo.stdout.on('data', (d) => (banner += d));
  const deadline = Date.now() + 60_000;
  while (!/X-Client-Secret: +\S+/.test(banner) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
  const clientId = /X-Client-ID: +(\S+)/.exec(banner)?.[1];
  const secret = /X-Client-Secret: +(\S+)/.exec(banner)?.[1];
  assert.ok(clientId && secret, `demo banner: ${banner}`);
  const env = setup!
    .replace(`http://127.0.0.1:8080`, `http://127.0.0.1:${port}`)
    .replace('CLIENT_ID=…', `CLIENT_ID=${clientId}`)
    .replace('CLIENT_SECRET=…', `CLIENT_SECRET=${secret}`);
  // ORDER_ID_CONFLICT's example starts with "create ORD-1 for 100".
  await sh(`${env}\ncurl -s "\${AUTH[@]}" $BASE/api/v1/intents/create-payment -d '{"amount":100,"currency":"UPI","order_id":"ORD-1"}'`);
  for (const row of rows) {
    // Needs an intent of the reader's own, or an address only the reader knows.
    if (row.command.includes('$INTENT_ID') || row.command.includes('<')) continue;
    const out = await sh(`${env}\n${row.command}`);
    let body: { code?: string };
    try {
      body = JSON.parse(out);
    } catch {
      assert.fail(`${row.code}: not JSON: ${out}\n${row.command}`);
    }
    assert.equal(body.code, row.code, `${row.command}\n→ ${out}`);
  }

  // The events example as printed, literal "…" in its URL included (Node's parser refuses it
  // before the app sees it): a JSON INVALID_REQUEST that says what is wrong, not an empty 400.
  const events = /```sh\n(curl -s "http:\/\/127\.0\.0\.1:8080\/api\/v1\/events[^`]+)```/.exec(DOC.slice(DOC.indexOf('### Events')))?.[1];
  assert.ok(events?.includes('…'), 'docs/api.md shows the events call with a placeholder id');
  const answer = await sh(`${env}\n${events!.replace('http://127.0.0.1:8080', `http://127.0.0.1:${port}`).replace(/\\\n/g, ' ').trim()} -w '\\n%{http_code}'`);
  const [json, status] = answer.trim().split('\n');
  assert.equal(status, '400', answer);
  const body = JSON.parse(json!);
  assert.equal(body.code, 'INVALID_REQUEST');
  assert.match(body.detail, /percent-encoded/);
  assert.deepEqual(body.errors.map((e: { field: string }) => e.field), ['url']);
});
