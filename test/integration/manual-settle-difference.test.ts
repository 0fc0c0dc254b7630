// A payment that is not what the intent asks, settled by hand (`payd intents settle`, the
// console's "Assign and settle"): the operator is shown the payment's own amount and the
// difference and must confirm it; the merchant's payment.success then says the order was paid
// short (underpaid_by), or over (overpaid_by), and by whom, as for an accepted held payment. Both stores.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test, type TestContext } from 'node:test';
import { runCli } from '../../src/cli/main.ts';
import type { App } from '../../src/app/index.ts';
import { directSession, startConsoleApp } from '../helpers/console.ts';
import { createResponseChecker } from '../helpers/openapi.ts';
import { startPayd } from '../helpers/payd.ts';
import { forEachStore } from '../helpers/stores.ts';

const checker = createResponseChecker();

/** The CLI in this process, on a terminal or not, answering its one question with `answer`. */
async function cli(args: string[], cwd: string, o: { interactive?: boolean; answer?: boolean } = {}) {
  let out = '';
  let err = '';
  const asked: string[] = [];
  const prompter = {
    confirm: async (q: { message: string }) => {
      asked.push(q.message);
      return o.answer ?? false;
    },
  } as never;
  const code = await runCli(args, { env: {}, cwd, io: { out: (t) => void (out += `${t}\n`), err: (t) => void (err += `${t}\n`) }, interactive: o.interactive ?? false, prompter });
  return { code, out, err, asked };
}

/** An ₹880 UPI intent and a transfer to the shop that matched nothing: ₹400 unless `paise` says otherwise. */
async function shortPayment(app: App, receiverOf: (intentId: string) => Promise<string>, ref: string, paise = 40_000n) {
  const creds = await app.merchants.create({ name: 'Kirana' });
  const merchant = await app.merchants.get(creds.client_id);
  const intent = await app.intents.create(merchant, { amount: 880, currency: 'UPI', order_id: `ORD-${ref}` });
  const now = Date.now();
  const seen = await app.ledger.ingestWith({ method: 'UPI', receiver: await receiverOf(intent.intent_id), amountMinor: paise, txRef: ref, occurredAt: now, observedAt: now, source: 'imap' }, undefined, {});
  assert.equal(seen.kind, 'unmatched');
  return intent;
}

/** The intent's payment.success body, checked against the OpenAPI document. */
async function successOf(app: App, intentId: string) {
  const events = await app.events.forIntent(intentId);
  const success = events.filter((e) => e.type === 'payment.success');
  assert.equal(success.length, 1, 'one payment.success');
  const body = (await app.events.show(success[0].event_id)).body as { data: Record<string, any> };
  assert.equal(checker.checkWebhook(body), undefined, 'payment.success matches the OpenAPI document');
  return body.data;
}

forEachStore((store) => {
  test('payd intents settle with a ₹400 payment for an ₹880 intent: refused until the difference is confirmed; payment.success carries underpaid_by', async (t: TestContext) => {
    const p = await startPayd({ store });
    t.after(() => p.close());
    writeFileSync(join(p.dir, 'payd.config.json'), JSON.stringify(p.rawConfig));
    const intent = await shortPayment(p.app, async (id) => (await p.app.intents.find(id))!.receiver, '612345678901');
    const due = intent.pay_amount.text;
    const short = (Math.round(Number(due) * 100) - 40_000) / 100;
    const settle = ['intents', 'settle', intent.intent_id, '--tx', '612345678901'];

    // Scripted, even with --yes: refused, saying what was paid and what is missing.
    for (const args of [settle, [...settle, '--yes']]) {
      const r = await cli(args, p.dir);
      assert.notEqual(r.code, 0, args.join(' '));
      assert.match(r.err, new RegExp(`400\\.00 UPI.*${short.toFixed(2).replace('.', '\\.')} UPI less than the ${due.replace('.', '\\.')} UPI`));
      assert.match(r.err, /--accept-difference/);
    }
    // On a terminal: the question names the payment's amount and the difference; "no" settles nothing.
    const no = await cli(settle, p.dir, { interactive: true, answer: false });
    assert.notEqual(no.code, 0);
    assert.equal(no.asked.length, 1);
    assert.match(no.asked[0], new RegExp(`payment of 400\\.00 UPI, ${short.toFixed(2).replace('.', '\\.')} UPI less than`));
    assert.doesNotMatch(no.asked[0], new RegExp(`Settle UPI ${due.replace('.', '\\.')}`), 'not worded as if the intent were paid in full');
    assert.equal((await p.app.intents.get(intent.intent_id)).status, 'pending');
    assert.equal((await p.app.events.forIntent(intent.intent_id)).length, 0, 'no webhook');

    const yes = await cli([...settle, '--accept-difference', '--note', 'customer will pay the rest in cash'], p.dir);
    assert.equal(yes.code, 0, yes.err);
    const data = await successOf(p.app, intent.intent_id);
    assert.deepEqual([data.status, data.amount_received, data.underpaid_by, data.accepted, data.settled_by], ['settled', 400, short, true, 'operator']);
    assert.deepEqual(data.payments.map((x: any) => [x.amount, x.status, x.reason]), [[400, 'credited', 'underpaid']]);
  });

  test('payd intents settle with a ₹1,000 payment for an ₹880 intent: refused until the difference is confirmed; payment.success carries overpaid_by', async (t: TestContext) => {
    const p = await startPayd({ store });
    t.after(() => p.close());
    writeFileSync(join(p.dir, 'payd.config.json'), JSON.stringify(p.rawConfig));
    const intent = await shortPayment(p.app, async (id) => (await p.app.intents.find(id))!.receiver, '612345678902', 100_000n);
    const over = (100_000 - Math.round(Number(intent.pay_amount.text) * 100)) / 100;
    const settle = ['intents', 'settle', intent.intent_id, '--tx', '612345678902'];
    const refused = await cli([...settle, '--yes'], p.dir);
    assert.notEqual(refused.code, 0);
    assert.match(refused.err, new RegExp(`1000\\.00 UPI.*${over.toFixed(2).replace('.', '\\.')} UPI more than`));
    assert.equal((await p.app.events.forIntent(intent.intent_id)).length, 0, 'no webhook');

    const yes = await cli([...settle, '--accept-difference'], p.dir);
    assert.equal(yes.code, 0, yes.err);
    const data = await successOf(p.app, intent.intent_id);
    assert.deepEqual([data.status, data.amount_received, data.overpaid_by, data.underpaid_by, data.accepted, data.settled_by], ['settled', 1000, over, undefined, true, 'operator']);
    assert.deepEqual(data.payments.map((x: any) => [x.amount, x.status, x.reason]), [[1000, 'credited', 'overpaid']]);
  });

  test("the console's Assign and settle with a ₹400 payment for an ₹880 intent: a confirm step shows the difference; confirmed, payment.success carries underpaid_by", async (t: TestContext) => {
    const c = await startConsoleApp({}, await store.config());
    t.after(() => c.close());
    const { app } = c;
    const s = await directSession(app, 'Counter phone');
    const base = c.origin.replace('localhost', '127.0.0.1');
    const post = (fields: Record<string, string>) =>
      fetch(`${base}/console/payments/assign`, { method: 'POST', redirect: 'manual', headers: { cookie: s.cookie, 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ csrf: s.csrf, ...fields }).toString() });
    const intent = await shortPayment(app, async (id) => (await app.intents.find(id))!.receiver, '712345678901');
    const short = ((Math.round(Number(intent.pay_amount.text) * 100) - 40_000) / 100).toFixed(2);

    // First press: a page asking to confirm, with the payment's amount and what it lacks.
    const first = await post({ tx_ref: '712345678901', intent_id: intent.intent_id });
    const page = await first.text();
    assert.equal(first.status, 200, page);
    assert.match(page, /₹400\.00/);
    assert.match(page, new RegExp(`₹${short.replace('.', '\\.')} less than`));
    assert.match(page, /name="accept_difference"/);
    assert.equal((await app.intents.find(intent.intent_id))!.status, 'pending');
    assert.equal((await app.events.forIntent(intent.intent_id)).length, 0, 'no webhook before the confirm');

    const confirmed = await post({ tx_ref: '712345678901', intent_id: intent.intent_id, accept_difference: '1' });
    assert.equal(confirmed.status, 303, await confirmed.text());
    const data = await successOf(app, intent.intent_id);
    assert.deepEqual([data.status, data.amount_received, data.underpaid_by, data.accepted, data.settled_by], ['settled', 400, Number(short), true, 'operator']);
    const audit = await app.db.selectFrom('audit_log').select(['actor', 'action', 'details_json']).where('action', '=', 'payment.link').execute();
    assert.deepEqual(audit.map((a) => [a.actor, JSON.parse(a.details_json!).difference]), [['console:Counter phone', `-${short}`]]);
  });
});
