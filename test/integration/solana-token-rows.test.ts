/**
 * A token is one row of its family's table. USDC on Solana (Circle's mint, 6 decimals) is a row
 * of the Solana family's SPL_TOKENS and pays through the fake RPC serving mainnet's shapes
 * (REAL-UPSTREAMS.md §3b: a `transferChecked` of USDC into an ATA created in the same
 * transaction); a test-only row with its own mint and 8 decimals, registered without touching
 * src/, is created, documented, shown and settled the same way.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { test, type TestContext } from 'node:test';
import { fileURLToPath } from 'node:url';
import { methodRegistry, type MethodRegistry } from '../../src/methods/registry.ts';
import { splTokenMethod } from '../../src/methods/solana/method.ts';
import { startFakeSolanaRpc } from '../fakes/solana-rpc.ts';
import { newKey, TOKEN_PROGRAM, tokenTransfer, USDC_MINT } from '../fakes/solana-tx.ts';
import { startPayd, type PaydHarness } from '../helpers/payd.ts';
import { waitFor } from '../helpers/wait.ts';

const POLL_SECONDS = 0.2;
const SRC = fileURLToPath(new URL('../../src/', import.meta.url));
const NONE = { UPI: undefined, USDT_TRC20: undefined, SOL: undefined, USDT_SOL: undefined, USDC_SOL: undefined };

async function payd(t: TestContext, methods: Record<string, unknown>, registry?: MethodRegistry): Promise<PaydHarness> {
  const p = await startPayd({ workers: true, sources: 'configured', methods: registry, config: { methods: { ...NONE, ...methods } } });
  t.after(() => p.close());
  return p;
}

const create = async (p: PaydHarness, headers: Record<string, string>, body: object) => (await p.api('POST', '/api/v1/intents/create-payment', { body, headers })).body;
const statusOf = async (p: PaydHarness, id: string) => (await p.app.intents.get(id)).status;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => (statSync(join(dir, name)).isDirectory() ? sourceFiles(join(dir, name)) : [join(dir, name)]));
}

test('USDC_SOL: a Solana Pay request for Circle\'s mint, settled by a USDC transfer and never by USDT of the same amount', async (t) => {
  const rpc = await startFakeSolanaRpc();
  t.after(() => rpc.close());
  const wallet = newKey();
  const payer = newKey();
  const p = await payd(t, { USDC_SOL: { wallet, rpcUrl: rpc.url, pollSeconds: POLL_SECONDS } });
  const m = await p.merchant();
  const intent = await create(p, m.headers, { amount: 12.5, currency: 'USDC_SOL', order_id: 'usdc-1' });
  assert.equal(intent.currency, 'USDC_SOL');
  assert.equal(intent.payment_address, wallet);
  assert.match(intent.payment_uri, new RegExp(`^solana:${wallet}\\?amount=12\\.5&spl-token=${USDC_MINT}&reference=${intent.reference}&`));

  const page = await (await fetch(`${p.url}/pay/${intent.intent_id}`)).text();
  assert.match(page, /<dd id="method">USDC on Solana \(SPL\)<\/dd>/);
  assert.match(page, /Send only USDC on the Solana network \(SPL\)\./);

  // USDT (another mint) for the same amount and reference: not USDC, never settles it.
  const usdt = rpc.add(tokenTransfer({ payer, wallet, amount: 12_500_000n, references: [intent.reference], createAta: true }));
  // The USDC transfer, as §3b records it: transferChecked into the ATA the payer creates.
  const usdc = rpc.add(tokenTransfer({ payer, wallet, amount: 12_500_000n, mint: USDC_MINT, references: [intent.reference], createAta: true }));
  await waitFor(async () => (await statusOf(p, intent.intent_id)) === 'settled', 10_000, 'the USDC intent to settle');
  const settled = await p.app.intents.get(intent.intent_id);
  assert.equal(settled.transaction_hash, usdc);
  const payments = await p.app.payments.list({});
  assert.deepEqual(payments.map((x: { tx_ref: string; method: string }) => [x.tx_ref, x.method]), [[usdc, 'USDC_SOL']]);
  assert.ok(!payments.some((x: { tx_ref: string }) => x.tx_ref === usdt));
});

test('USDC_SOL pays in the sandbox: the simulated transfer settles the intent with a Solana signature', async (t) => {
  const p = await startPayd({ sandbox: true });
  t.after(() => p.close());
  const m = await p.merchant();
  const intent = await create(p, m.headers, { amount: 12.5, currency: 'USDC_SOL', order_id: 'sb-usdc-sol' });
  assert.equal(intent.currency, 'USDC_SOL', JSON.stringify(intent));
  assert.match(intent.payment_uri, new RegExp(`^solana:${intent.payment_address}\\?amount=12\\.5&spl-token=${USDC_MINT}&reference=${intent.reference}&`));
  const paid = await p.app.actions.sandboxPay(intent.intent_id, undefined);
  const after = await p.app.intents.get(intent.intent_id);
  assert.equal(after.status, 'settled');
  assert.equal(after.transaction_hash, paid.txRef);
  assert.match(after.transaction_hash!, /^[1-9A-HJ-NP-Za-km-z]{64,88}$/);
});

test('a token is one row: a test-only SPL token (its own mint, 8 decimals) is created, documented, shown and settled with no src/ file naming it', async (t) => {
  const rpc = await startFakeSolanaRpc();
  t.after(() => rpc.close());
  const mint = newKey();
  rpc.mint(mint, TOKEN_PROGRAM);
  // The one row.
  const row = { id: 'TESTTOKEN_SOL', unit: 'TTK', mint, decimals: 8, initOrder: 99 };
  const registry = methodRegistry([splTokenMethod(row)]);
  const wallet = newKey();
  const payer = newKey();
  const p = await payd(t, { TESTTOKEN_SOL: { wallet, rpcUrl: rpc.url, pollSeconds: POLL_SECONDS } }, registry);
  const m = await p.merchant();

  // The document this payd serves lists it (the shipped one cannot: the row is the test's).
  const doc = await (await fetch(`${p.url}/api/v1/openapi.json`)).json();
  assert.ok(doc.components.schemas.Intent.properties.currency.enum.includes('TESTTOKEN_SOL'));
  const post = async (body: object) => {
    const res = await fetch(`${p.url}/api/v1/intents/create-payment`, { method: 'POST', headers: { ...m.headers, 'content-type': 'application/json' }, body: JSON.stringify(body) });
    return { status: res.status, body: await res.json() };
  };
  const intent = (await post({ amount: 3.2, currency: 'TESTTOKEN_SOL', order_id: 'ttk-1' })).body;
  assert.equal(intent.pay_amount, 3.2, JSON.stringify(intent));
  assert.match(intent.payment_uri, new RegExp(`spl-token=${mint}&reference=${intent.reference}`));
  // Its rules follow from the row: 8 decimals, never a 9th.
  const tooFine = await post({ amount: 1.000000001, currency: 'TESTTOKEN_SOL', order_id: 'ttk-2' });
  assert.equal(tooFine.status, 400);
  assert.match(JSON.stringify(tooFine.body), /at most 8 decimal places/);
  const page = await (await fetch(`${p.url}/pay/${intent.intent_id}`)).text();
  assert.match(page, /<dd id="method">TTK on Solana \(SPL\)<\/dd>/);

  // A transfer of the mint with other decimals is not this token; the right one settles.
  rpc.add(tokenTransfer({ payer, wallet, amount: 3_200_000n, mint, decimals: 6, references: [intent.reference], createAta: true }));
  const paid = rpc.add(tokenTransfer({ payer, wallet, amount: 320_000_000n, mint, decimals: 8, references: [intent.reference] }));
  await waitFor(async () => (await statusOf(p, intent.intent_id)) === 'settled', 10_000, 'the test token intent to settle');
  assert.equal((await p.app.intents.get(intent.intent_id)).transaction_hash, paid);

  assert.deepEqual(sourceFiles(SRC).filter((f) => /TESTTOKEN|\bTTK\b/.test(readFileSync(f, 'utf8'))), []);
});
