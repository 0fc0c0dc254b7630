// The built daemon (dist/, the esbuild bundle bin/payd runs) takes a real payment on every method.
// Every other payment test runs the sources through tsx in this process; a bundling mistake in a
// lazily loaded method chunk (a library reading a file beside itself, a `__dirname`, a dynamic
// require) would only show in production. So: `bin/payd serve` as a real process, with UPI against
// a real Dovecot (DKIM required, keys from the test's DNS server), USDT on TRON against the fake
// TronGrid and SOL / USDT on Solana against the fake RPC and PubSub websocket (recorded or documented
// wire shapes; sources cited in test/fakes/trongrid.ts, solana-rpc.ts and solana-pubsub.ts); a
// merchant pays over HTTP.
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { Keypair } from '@solana/web3.js';
import { Webhook } from 'standardwebhooks';
import { startFakeSolanaPubSub } from '../fakes/solana-pubsub.ts';
import { startFakeSolanaRpc } from '../fakes/solana-rpc.ts';
import { solTransfer, tokenTransfer, USDT_MINT } from '../fakes/solana-tx.ts';
import { CUSTOMER, MERCHANT, startFakeTronGrid, txid } from '../fakes/trongrid.ts';
import { alertMail, hdfcCredit, signingKit, type AlertCase } from '../helpers/bank-alerts.ts';
import { logLines, runPayd, spawnPayd, workdir } from '../helpers/cli.ts';
import { mailboxWithDns, upiDaemonSection } from '../helpers/dovecot.ts';
import { startReceiver } from '../helpers/receiver.ts';
import { waitFor } from '../helpers/wait.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const DIST = join(ROOT, 'dist');
const TRACE_LOADS = fileURLToPath(new URL('../helpers/trace-loads.mjs', import.meta.url));
const WAIT_MS = 30_000;
// A real HDFC 2026 alert that comes as HTML only (so html-to-text runs too): its body as quoted in
// test/fixtures/upi-emails/real-2026.json (from test/fixtures/upi-emails/REAL-2026.md), amount and date changed per test.
const HTML_ALERT = (JSON.parse(readFileSync(new URL('../fixtures/upi-emails/real-2026.json', import.meta.url), 'utf8')).credits as Array<AlertCase & { amount: string; date: string; expect: { utr: string; accountMask: string } }>).find(
  (c) => c.id === 'hdfc-2026-html-glued',
)!;

/** Today in IST as the bank prints it (dd-mm-yy). */
const istToday = (): string => {
  const ist = new Date(Date.now() + 330 * 60_000);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${pad(ist.getUTCDate())}-${pad(ist.getUTCMonth() + 1)}-${pad(ist.getUTCFullYear() % 100)}`;
};

/** A decimal amount as the API prints it → minor units of `decimals` digits (no float arithmetic). */
const minor = (amount: number | string, decimals: number): bigint => {
  const [whole, frac = ''] = String(amount).split('.');
  return BigInt(whole!) * 10n ** BigInt(decimals) + BigInt(frac.padEnd(decimals, '0'));
};

test('the built daemon settles UPI, USDT_TRC20, SOL and USDT_SOL payments and signs their webhooks; a forged alert settles nothing', async (t) => {
  assert.ok(existsSync(join(DIST, 'main.js')), 'dist/ is built (test/run.mjs builds it first)');
  const kit = signingKit();
  const { dovecot, dnsServer } = await mailboxWithDns(t, kit.zone);
  const grid = await startFakeTronGrid();
  t.after(() => grid.close());
  const rpc = await startFakeSolanaRpc();
  t.after(() => rpc.close());
  const pubsub = await startFakeSolanaPubSub();
  t.after(() => pubsub.close());
  const receiver = await startReceiver();
  t.after(() => receiver.close());
  const wallet = Keypair.generate().publicKey.toBase58();
  const payer = Keypair.generate().publicKey.toBase58();

  const dir = workdir(t, {
    server: { host: '127.0.0.1', port: 0, publicUrl: 'https://pay.example.com', rateLimit: { perSecond: 0, burst: 1 }, publicRateLimit: { perSecond: 0, burst: 1 } },
    database: { file: 'data/payd.sqlite' },
    webhooks: { retrySchedule: [1, 1, 1], timeoutSeconds: 2, allowLoopback: true },
    methods: {
      UPI: upiDaemonSection(dovecot, dnsServer, {
        accounts: [
          { bank: 'hdfc', accountEnding: '4321' },
          { bank: 'hdfc', accountEnding: HTML_ALERT.expect.accountMask },
        ],
      }),
      USDT_TRC20: { address: MERCHANT, apiUrl: grid.url, pollSeconds: 0.2 },
      // SOL polls once an hour: within the test only its logs subscription (web3.js's websocket
      // client, bundled) can wake it.
      SOL: { wallet, rpcUrl: rpc.url, wsUrl: pubsub.url, pollSeconds: 3600 },
      USDT_SOL: { wallet, rpcUrl: rpc.url, pollSeconds: 0.2, mint: USDT_MINT },
    },
  });
  // The merchant is made by the built CLI too.
  const made = await runPayd(['merchant', 'create', '--name', 'Shop', '--webhook-url', receiver.url, '--json'], dir);
  assert.equal(made.status, 0, made.stderr);
  const merchant = JSON.parse(made.stdout);
  const headers = { 'x-client-id': merchant.client_id, 'x-client-secret': merchant.client_secret, 'content-type': 'application/json' };

  const trace = join(dir, 'loaded-modules.txt');
  const d = await spawnPayd(['serve'], { cwd: dir, env: { NODE_OPTIONS: `--import=${TRACE_LOADS}`, PAYD_TRACE_LOADS: trace } });
  t.after(() => d.child.kill('SIGKILL'));
  const api = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(d.url + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    return { status: res.status, body: (await res.json()) as any };
  };
  const create = async (amount: number, currency: string, order_id: string) => {
    const r = await api('POST', '/api/v1/intents/create-payment', { amount, currency, order_id });
    assert.equal(r.status, 200, `${currency}: ${JSON.stringify(r.body)}`);
    return r.body;
  };
  const statusOf = async (id: string) => (await api('GET', `/api/v1/intents/${id}`)).body.status as string;

  const upi = await create(499.37, 'UPI', 'build-upi');
  const upiHtml = await create(2000, 'UPI', 'build-upi-html');
  const tron = await create(12.5, 'USDT_TRC20', 'build-tron');
  const sol = await create(0.25, 'SOL', 'build-sol');
  const usdtSol = await create(3, 'USDT_SOL', 'build-usdt-sol');
  const rupeeText = (amount: number | string) => {
    const paise = minor(amount, 2);
    return `${paise / 100n}.${String(paise % 100n).padStart(2, '0')}`;
  };

  // First a forged alert for exactly the UPI intent's amount: signed for Rs.1.00, then edited.
  const forged = (await kit.sign(hdfcCredit({ rupees: '1.00', utr: '632612340001', account: '4321' }))).toString().replace('Rs.1.00', `Rs.${rupeeText(upi.pay_amount)}`);
  assert.ok(forged.includes(`Rs.${rupeeText(upi.pay_amount)} has been`), 'the edit took');
  await dovecot.append(forged);
  const rejected = await waitFor(async () => logLines(d.stderr()).find((l) => l.msg === 'mail rejected as a payment alert'), WAIT_MS, 'the forged alert to be rejected');
  assert.match(rejected.reason, /^dkim_/);
  assert.equal(await statusOf(upi.intent_id), 'pending', 'a forged alert settles nothing');

  // Then every method gets paid upstream.
  const utr = '632612340002';
  await dovecot.append(await kit.sign(hdfcCredit({ rupees: rupeeText(upi.pay_amount), utr, account: '4321' })));
  const swap = (text: string) => text.replace(`Rs.${HTML_ALERT.amount}`, `Rs.${rupeeText(upiHtml.pay_amount)}`).replace(HTML_ALERT.date, istToday());
  assert.notEqual(swap(HTML_ALERT.html!), HTML_ALERT.html, 'the amount and date were replaced');
  await dovecot.append(await kit.sign(alertMail({ ...HTML_ALERT, html: swap(HTML_ALERT.html!) })));
  const tronTx = grid.add({ transaction_id: txid(), from: CUSTOMER, to: MERCHANT, value: minor(tron.pay_amount, 6).toString(), confirmed: true, block_timestamp: Date.now() });
  const solTx = rpc.add(solTransfer({ from: payer, to: wallet, lamports: minor(sol.pay_amount, 9), reference: sol.reference }));
  const subscription = await waitFor(async () => [...pubsub.subscriptions].find(([, x]) => x.account === wallet), WAIT_MS, 'the SOL source to subscribe to its wallet\'s logs');
  assert.equal(subscription[1].commitment, 'finalized');
  assert.equal(pubsub.notify(wallet, solTx), 1);
  const usdtSolTx = rpc.add(tokenTransfer({ payer, wallet, amount: minor(usdtSol.pay_amount, 6), createAta: true }));

  const expected = new Map<string, string>([
    [upi.intent_id, utr],
    [upiHtml.intent_id, HTML_ALERT.expect.utr],
    [tron.intent_id, tronTx.transaction_id],
    [sol.intent_id, solTx],
    [usdtSol.intent_id, usdtSolTx],
  ]);
  for (const [id, tx] of expected) {
    await waitFor(async () => (await statusOf(id)) === 'settled', WAIT_MS, `intent ${id} (paid by ${tx}) to settle`).catch((err) => {
      throw new Error(`${err.message}; the daemon's log ends:\n${d.stderr().slice(-4000)}`);
    });
    assert.equal((await api('GET', `/api/v1/intents/${id}`)).body.transaction_hash, tx);
  }

  // One signed payment.success per intent, naming its transaction.
  const hooks = await receiver.waitFor(5, WAIT_MS);
  const verifier = new Webhook(merchant.webhook_secret);
  const events = hooks.map(
    (h) =>
      verifier.verify(h.body, {
        'webhook-id': String(h.headers['webhook-id']),
        'webhook-timestamp': String(h.headers['webhook-timestamp']),
        'webhook-signature': String(h.headers['webhook-signature']),
      }) as any,
  );
  assert.deepEqual(events.map((e) => e.type), Array(5).fill('payment.success'));
  assert.deepEqual(new Map(events.map((e) => [e.data.intent_id, e.data.transaction_hash])), expected);
  assert.deepEqual(events.map((e) => e.data.currency).sort(), ['SOL', 'UPI', 'UPI', 'USDT_SOL', 'USDT_TRC20']);

  // The forged mail is kept for the operator with its reason (read by the built CLI as well).
  const listed = await runPayd(['payments', 'list', '--rejected', '--json'], dir);
  assert.equal(listed.status, 0, listed.stderr);
  const rejections = JSON.parse(listed.stdout);
  assert.equal(rejections.length, 1, listed.stdout);
  assert.match(rejections[0].reason, /^dkim_/);
  assert.equal(rejections[0].method, 'UPI');

  d.child.kill('SIGTERM');
  assert.equal(await d.exited, 0);
  assert.deepEqual(pubsub.unsubscribed, [subscription[0]], 'unsubscribed on the way out');
  // It ran the build: no fallback to the sources, and every method's lazy chunk came from dist/.
  assert.doesNotMatch(d.stderr(), /no build in dist/);
  const loaded = readFileSync(trace, 'utf8').split('\n').filter(Boolean).map((u) => fileURLToPath(u));
  const ours = loaded.filter((p) => !p.includes('/node_modules/') && p.startsWith(ROOT));
  assert.deepEqual(ours.filter((p) => !p.startsWith(DIST + '/') && p !== join(ROOT, 'bin/payd')), [], 'nothing loaded from src/');
  const chunk = (prefix: string) => ours.some((p) => new RegExp(`^${DIST}/${prefix}-[A-Z0-9]+\\.js$`).test(p));
  // The alert inspector itself runs in a worker thread from dist/inspect-worker.js (its own entry
  // point); the settled UPI intents above are its verdicts.
  for (const prefix of ['imap-source', 'inspector-pool', 'mail-store']) assert.ok(chunk(prefix), `dist/${prefix}-*.js was loaded:\n${ours.join('\n')}`);
  // TRON's and Solana's sources are two chunks of the same name (src/methods/{tron,solana}/source.ts).
  const sources = ours.filter((p) => new RegExp(`^${DIST}/source-[A-Z0-9]+\\.js$`).test(p));
  assert.equal(sources.length, 2, `dist/source-*.js chunks loaded:\n${ours.join('\n')}`);
});
