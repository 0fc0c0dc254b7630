/**
 * Solana through the real app (real sources, real ledger, real SQLite) against the fake
 * RPC serving mainnet's shapes of November 2026 (test/fixtures/chains/REAL-UPSTREAMS.md §3): v1 transactions,
 * several references in one transaction, a dust-spam backlog, a Token-2022 mint.
 */
import assert from 'node:assert/strict';
import { test, type TestContext } from 'node:test';
import { startFakeSolanaRpc, type FakeSolanaRpc } from '../fakes/solana-rpc.ts';
import { associatedTokenAddress } from '../../src/methods/solana/accounts.ts';
import { newKey, PYUSD_MINT, solTransfer, solTransfers, TOKEN_2022_PROGRAM, tokenTransfer, USDT_MINT } from '../fakes/solana-tx.ts';
import { startPayd, type PaydHarness } from '../helpers/payd.ts';
import { waitFor } from '../helpers/wait.ts';

const POLL_SECONDS = 0.2;

async function payd(t: TestContext, methods: Record<string, unknown>) {
  const p = await startPayd({ workers: true, sources: 'configured', config: { methods: { UPI: undefined, USDT_TRC20: undefined, SOL: undefined, USDT_SOL: undefined, ...methods } } });
  t.after(() => p.close());
  return p;
}

async function rpc(t: TestContext): Promise<FakeSolanaRpc> {
  const r = await startFakeSolanaRpc();
  t.after(() => r.close());
  return r;
}

const statusOf = async (p: PaydHarness, id: string) => (await p.app.intents.get(id)).status;
const create = async (p: PaydHarness, headers: Record<string, string>, body: object) => (await p.api('POST', '/api/v1/intents/create-payment', { body, headers })).body;

test('Solana v1: a v1 transaction ahead of a payment never stalls the source; the payment settles within two listings', async (t) => {
  const r = await rpc(t);
  const wallet = newKey();
  const payer = newKey();
  const p = await payd(t, { SOL: { wallet, rpcUrl: r.url, pollSeconds: POLL_SECONDS } });
  const m = await p.merchant();
  const first = await create(p, m.headers, { amount: 0.25, currency: 'SOL', order_id: 'v1-first' });
  const second = await create(p, m.headers, { amount: 0.5, currency: 'SOL', order_id: 'v1-second' });
  // A checkpoint exists before the v1 traffic arrives, as on a shop running since before 2026-09-15.
  const warm = r.add(solTransfer({ from: payer, to: wallet, lamports: 1 }));
  await waitFor(async () => (await p.app.payments.list({})).some((x: { tx_ref: string }) => x.tx_ref === warm), 8000, 'the first transaction to be recorded');

  const listingsBefore = r.count('getSignaturesForAddress');
  // Anyone can send this: 1 lamport in a v1 transaction, then a future version no client reads,
  // then a transaction the node answers in a shape web3.js cannot decode.
  const dust = r.add(solTransfer({ from: newKey(), to: wallet, lamports: 1, version: 1 }));
  const future = r.add(solTransfer({ from: newKey(), to: wallet, lamports: 1, version: 2 }));
  const garbled = r.add(solTransfer({ from: newKey(), to: wallet, lamports: 1, version: 1 }));
  r.override(garbled, (res) => ({ ...res, meta: { ...(res.meta as object), preBalances: 'not a list' } }));
  const paidV1 = r.add(solTransfer({ from: payer, to: wallet, lamports: 250_000_000, reference: first.reference, version: 1 }));
  const paidLegacy = r.add(solTransfer({ from: payer, to: wallet, lamports: 500_000_000, reference: second.reference }));

  await waitFor(async () => (await statusOf(p, second.intent_id)) === 'settled', 10_000, 'the payment after the v1 transactions to settle');
  // One listing may already be in flight when the transactions land; the next one must settle them.
  assert.ok(r.count('getSignaturesForAddress') - listingsBefore <= 3, `settled within two poll intervals (listings: ${r.count('getSignaturesForAddress') - listingsBefore})`);
  assert.equal(await statusOf(p, first.intent_id), 'settled', 'a v1 transaction is read like any other');
  assert.equal((await p.app.intents.get(first.intent_id)).transaction_hash, paidV1);
  assert.equal((await p.app.intents.get(second.intent_id)).transaction_hash, paidLegacy);

  // getTransaction asked for version 1, the highest web3.js 1.99 reads.
  const asked = r.requests.filter((q) => q.method === 'getTransaction').map((q) => (q.params[1] as { maxSupportedTransactionVersion?: number }).maxSupportedTransactionVersion);
  assert.ok(asked.length > 0 && asked.every((v) => v === 1), `maxSupportedTransactionVersion: ${asked.join(',')}`);

  // The 1-lamport v1 dust is an unmatched payment; the unreadable ones are rejections the operator sees.
  const payments = await p.app.payments.list({});
  assert.ok(payments.some((x: { tx_ref: string; status: string }) => x.tx_ref === dust && x.status === 'unmatched'));
  const rejections = await p.app.payments.rejections();
  const unreadable = rejections.filter((x) => x.reason === 'unsupported_transaction').map((x) => x.ref).sort();
  assert.deepEqual(unreadable, [`solana:${future}`, `solana:${garbled}`].sort());
  const detail = rejections.find((x) => x.ref === `solana:${future}`)!.detail as { error: string };
  assert.match(detail.error, /Transaction version \(2\) is not supported/);

  // Nothing is read twice: each unreadable transaction was asked for once, not on every tick.
  const futureAsks = r.requests.filter((q) => q.method === 'getTransaction' && q.params[0] === future).length;
  assert.equal(futureAsks, 1);
});

test('Solana: two references in one transaction settle both intents; a third it does not cover is credited the rest and waits for what is still due', async (t) => {
  const r = await rpc(t);
  const wallet = newKey();
  const payer = newKey();
  const p = await payd(t, { SOL: { wallet, rpcUrl: r.url, pollSeconds: POLL_SECONDS }, USDT_SOL: { wallet, rpcUrl: r.url, pollSeconds: POLL_SECONDS, mint: USDT_MINT } });
  const m = await p.merchant();
  const a = await create(p, m.headers, { amount: 0.1, currency: 'SOL', order_id: 'multi-a' });
  const b = await create(p, m.headers, { amount: 0.2, currency: 'SOL', order_id: 'multi-b' });
  // One customer pays both orders in one transaction: two System transfers, each with its reference,
  // sent by a relayer that pays the fee (fee payer ≠ sender, as in the recorded §3a transaction).
  const both = r.add(solTransfers({ from: payer, to: wallet, feePayer: newKey(), parts: [{ lamports: 100_000_000, references: [a.reference] }, { lamports: 200_000_000, references: [b.reference] }] }));

  // USDT: three orders (pay_amounts 1.01, 2.01, 4.01: never a whole USDT) referenced by one CPI transfer (plain `transfer`, inside a swap) that covers only two.
  const u1 = await create(p, m.headers, { amount: 1, currency: 'USDT_SOL', order_id: 'multi-u1' });
  const u2 = await create(p, m.headers, { amount: 2, currency: 'USDT_SOL', order_id: 'multi-u2' });
  const u3 = await create(p, m.headers, { amount: 4, currency: 'USDT_SOL', order_id: 'multi-u3' });
  const partial = r.add(tokenTransfer({ payer, wallet, amount: 4_500_000n, references: [u3.reference, u1.reference, u2.reference], instruction: 'transfer', viaCpi: true, createAta: true }));

  await waitFor(async () => (await statusOf(p, a.intent_id)) === 'settled' && (await statusOf(p, b.intent_id)) === 'settled', 10_000, 'both SOL intents to settle');
  assert.equal((await p.app.intents.get(a.intent_id)).transaction_hash, both);
  assert.equal((await p.app.intents.get(b.intent_id)).transaction_hash, both);

  await waitFor(async () => (await statusOf(p, u2.intent_id)) === 'settled', 10_000, 'the USDT intents the credit covers to settle');
  assert.equal(await statusOf(p, u1.intent_id), 'settled', 'oldest first');
  assert.equal(await statusOf(p, u3.intent_id), 'pending', 'not covered: stays open for a later full payment');
  const usdt = (await p.app.payments.list({})).filter((x) => x.tx_ref.startsWith(partial));
  const byIntent = Object.fromEntries(usdt.map((x) => [x.intent_id, `${x.amount.text} ${x.status} ${x.reason ?? ''}`.trim()]));
  // The rest carries u3's reference: credited to it (payments accumulate), the intent waits for the other 2.53.
  assert.deepEqual(byIntent, { [u1.intent_id]: '1.01 matched', [u2.intent_id]: '2.01 matched', [u3.intent_id]: '1.48 matched' });
  assert.equal((await p.app.intents.get(u3.intent_id)).amount_received.text, '1.48');

  // Read again after a restart of the scan (the checkpoint is the signature): nothing more is recorded.
  const count = (await p.app.payments.list({})).length;
  const listings = r.count('getSignaturesForAddress');
  await waitFor(async () => r.count('getSignaturesForAddress') >= listings + 4, 5000, 'more listings');
  assert.equal((await p.app.payments.list({})).length, count);
});

test('Solana backlog: 100,001 signatures since the checkpoint are paged through across cycles; payments before and after them settle', async (t) => {
  const r = await rpc(t);
  const wallet = newKey();
  const payer = newKey();
  const p = await payd(t, { SOL: { wallet, rpcUrl: r.url, pollSeconds: POLL_SECONDS } });
  const m = await p.merchant();
  const before = await create(p, m.headers, { amount: 0.3, currency: 'SOL', order_id: 'backlog-before' });
  const after = await create(p, m.headers, { amount: 0.4, currency: 'SOL', order_id: 'backlog-after' });
  const warm = r.add(solTransfer({ from: payer, to: wallet, lamports: 1 }));
  await waitFor(async () => (await p.app.payments.list({})).some((x) => x.tx_ref === warm), 8000, 'a checkpoint');

  // A payment, then a dust-spam storm of 100,001 (failed) transactions, then another payment.
  const early = r.add(solTransfer({ from: payer, to: wallet, lamports: 300_000_000, reference: before.reference }));
  r.spam(wallet, 100_001);
  const late = r.add(solTransfer({ from: payer, to: wallet, lamports: 400_000_000, reference: after.reference }));

  await waitFor(async () => (await statusOf(p, after.intent_id)) === 'settled', 60_000, 'the payment after the backlog to settle');
  await waitFor(async () => (await statusOf(p, before.intent_id)) === 'settled', 60_000, 'the payment inside the backlog to settle');
  assert.equal((await p.app.intents.get(after.intent_id)).transaction_hash, late);
  assert.equal((await p.app.intents.get(before.intent_id)).transaction_hash, early);

  // Each listing step is bounded (≤ 100 pages of 1000), and none failed: the source never stalled.
  const listings = r.requests.filter((q) => q.method === 'getSignaturesForAddress');
  assert.ok(listings.every((q) => ((q.params[1] as { limit?: number }).limit ?? 1000) <= 1000));
  assert.ok(listings.length >= 101, `100,001 signatures take at least 101 pages (${listings.length} listings)`);
  // Failed spam is never fetched: only the real transfers were.
  assert.equal(r.count('getTransaction'), 3);
  // Afterwards the checkpoint is the newest signature again: a new payment settles on the next listing.
  const next = await create(p, m.headers, { amount: 0.5, currency: 'SOL', order_id: 'backlog-next' });
  r.add(solTransfer({ from: payer, to: wallet, lamports: 500_000_000, reference: next.reference }));
  await waitFor(async () => (await statusOf(p, next.intent_id)) === 'settled', 10_000, 'a payment after the backlog was worked through');
});

test('Solana Token-2022: the mint owner program is read once at start; the ATA derived with it is watched and its payments settle', async (t) => {
  const r = await rpc(t);
  const wallet = newKey();
  const payer = newKey();
  const p = await payd(t, { USDT_SOL: { wallet, rpcUrl: r.url, pollSeconds: POLL_SECONDS, mint: PYUSD_MINT } });
  const m = await p.merchant();
  const intent = await create(p, m.headers, { amount: 12, currency: 'USDT_SOL', order_id: 'pyusd-1' });
  // Token-2022 balance rows and instruction (programId Tokenz…), into the Token-2022 ATA.
  const paid = r.add(tokenTransfer({ payer, wallet, mint: PYUSD_MINT, tokenProgram: TOKEN_2022_PROGRAM, amount: 12_010_000n, reference: intent.reference }));
  await waitFor(async () => (await statusOf(p, intent.intent_id)) === 'settled', 10_000, 'the Token-2022 payment to settle');
  assert.equal((await p.app.intents.get(intent.intent_id)).transaction_hash, paid);

  const ata2022 = associatedTokenAddress(wallet, PYUSD_MINT, TOKEN_2022_PROGRAM);
  const listed = new Set(r.requests.filter((q) => q.method === 'getSignaturesForAddress').map((q) => q.params[0]));
  assert.deepEqual([...listed], [ata2022], 'only the Token-2022 ATA is listed');
  assert.notEqual(ata2022, associatedTokenAddress(wallet, PYUSD_MINT), 'the classic derivation would watch another address');
  const owners = r.requests.filter((q) => q.method === 'getAccountInfo');
  assert.deepEqual(owners.map((q) => q.params[0]), [PYUSD_MINT], 'the mint owner is read once');
});

test('payd doctor names the mint\'s token program, and fails on a mint the cluster does not know', async (t) => {
  const { mkdtempSync, rmSync, writeFileSync } = await import('node:fs');
  const { join } = await import('node:path');
  const { tmpdir } = await import('node:os');
  const { payd: cli } = await import('../helpers/cli.ts');
  const r = await rpc(t);
  const dir = mkdtempSync(join(tmpdir(), 'payd-doctor-sol-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const wallet = newKey();
  const write = (mint: string) => writeFileSync(join(dir, 'payd.config.json'), JSON.stringify({ methods: { USDT_SOL: { wallet, rpcUrl: r.url, mint } } }));
  write(PYUSD_MINT);
  const ok = await cli(['doctor'], { cwd: dir });
  assert.equal(ok.code, 0, ok.out + ok.err);
  assert.match(ok.out, new RegExp(`^ok\\s+solana.*token account ${associatedTokenAddress(wallet, PYUSD_MINT, TOKEN_2022_PROGRAM)} \\(mint ${PYUSD_MINT}, Token-2022 program\\)`, 'm'));
  write(USDT_MINT);
  const classic = await cli(['doctor'], { cwd: dir });
  assert.match(classic.out, /\(mint Es9v\w+, SPL Token program\)/);
  const unknown = newKey();
  write(unknown);
  const bad = await cli(['doctor'], { cwd: dir });
  assert.equal(bad.code, 1);
  assert.match(bad.out, new RegExp(`^FAIL\\s+solana.*mint ${unknown} does not exist on this cluster`, 'm'));
});
