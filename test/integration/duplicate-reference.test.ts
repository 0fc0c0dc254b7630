// A reference that arrives again with other facts (amount, receiver, account)
// is never dropped silently: it is kept as a rejection with its raw message, logged, and counted
// by `payd doctor`. On both stores.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ReceivedPayment } from '../../src/domain/payment.ts';
import type { Logger } from '../../src/domain/ports.ts';
import { startPayd, type PaydHarness } from '../helpers/payd.ts';
import { forEachStore } from '../helpers/stores.ts';

function capturingLogger(lines: { level: string; msg: string; fields?: Record<string, unknown> }[]): Logger {
  const at = (level: string) => (msg: string, fields?: Record<string, unknown>) => void lines.push({ level, msg, fields });
  const log: Logger = { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error'), child: () => log };
  return log;
}

forEachStore((store) => {
  async function setup(t: import('node:test').TestContext) {
    const logs: { level: string; msg: string; fields?: Record<string, unknown> }[] = [];
    const p = await startPayd({ store, log: capturingLogger(logs) });
    t.after(() => p.close());
    const m = await p.merchant('Shop');
    const create = async (amount: number, order: string) => {
      const r = await p.api('POST', '/api/v1/intents/create-payment', { body: { amount, currency: 'UPI', order_id: order }, headers: m.headers });
      assert.equal(r.status, 200, JSON.stringify(r.body));
      return r.body as { intent_id: string };
    };
    return { p, logs, create };
  }

  const alert = (p: PaydHarness, amountMinor: bigint, utr: string, over: Partial<ReceivedPayment> = {}, mail = 'imap:7:1'): ReceivedPayment => ({
    method: 'UPI',
    receiver: 'shop@hdfcbank',
    amountMinor,
    txRef: utr,
    occurredAt: p.clock.now(),
    observedAt: p.clock.now(),
    source: 'imap',
    evidence: { bank: 'hdfc', accountMask: '4321' },
    origin: { ref: mail, raw: Buffer.from(`Subject: credit ${amountMinor} ${utr}\r\n\r\nbody of ${mail}`) },
    ...over,
  });

  const doctorLine = async (p: PaydHarness) => (await p.app.doctor.run()).find((l) => /duplicate_reference_mismatch/.test(l.message));

  test('a reference seen again with another amount is kept as duplicate_reference_mismatch with its raw mail, warned about and counted by doctor', async (t) => {
    const { p, logs, create } = await setup(t);
    const small = await create(1.5, 'A');
    const big = await create(5000, 'B');
    assert.equal((await p.app.ledger.ingest(alert(p, 150n, '411111111111'))).kind, 'settled');
    assert.equal((await doctorLine(p))?.ok ?? true, true, 'no mismatch yet: doctor has nothing to report');

    const outcome = await p.app.ledger.ingest(alert(p, 500000n, '411111111111', {}, 'imap:7:2'));
    assert.deepEqual(outcome, { kind: 'rejected', reason: 'duplicate_reference_mismatch' });

    const [r] = (await p.app.payments.rejections()).filter((x) => x.reason === 'duplicate_reference_mismatch');
    assert.ok(r, 'kept as a rejection');
    assert.equal(r.ref, 'imap:7:2');
    assert.equal((r.detail as any).tx_ref, '411111111111');
    assert.equal((r.detail as any).amount_minor, '500000');
    assert.equal((r.detail as any).recorded.amount_minor, '150');
    const raw = await p.app.db.selectFrom('rejections').select('raw').where('ref', '=', 'imap:7:2').executeTakeFirstOrThrow();
    assert.match(Buffer.from(raw.raw!).toString(), /body of imap:7:2/);
    assert.ok(logs.some((l) => l.level === 'warn' && /reference/.test(l.msg) && l.fields?.reason === 'duplicate_reference_mismatch'), 'a warning is logged');

    // Nothing else changed: the ₹5000 intent is still open, one payment row.
    assert.equal((await p.app.payments.list({})).length, 1);
    assert.equal((await p.app.intents.get(big.intent_id)).status, 'pending');
    assert.equal((await p.app.intents.get(small.intent_id)).status, 'settled');

    const line = await doctorLine(p);
    assert.ok(line, 'doctor reports it');
    assert.equal(line.ok, false);
    assert.match(line.message, /^1 /);

    // The same mail seen again (a re-scan) is not a second rejection.
    assert.equal((await p.app.ledger.ingest(alert(p, 500000n, '411111111111', {}, 'imap:7:2'))).kind, 'rejected');
    assert.equal((await p.app.payments.rejections()).filter((x) => x.reason === 'duplicate_reference_mismatch').length, 1);
  });

  test('another account or receiver under a known reference is a mismatch too; the same facts again are a plain duplicate', async (t) => {
    const { p, create } = await setup(t);
    await create(1.5, 'A');
    assert.equal((await p.app.ledger.ingest(alert(p, 150n, '422222222222'))).kind, 'settled');
    // Re-read of the very same alert (another copy of the mail): a duplicate, nothing kept.
    assert.equal((await p.app.ledger.ingest(alert(p, 150n, '422222222222', {}, 'imap:7:9'))).kind, 'duplicate');
    const account = await p.app.ledger.ingest(alert(p, 150n, '422222222222', { evidence: { bank: 'hdfc', accountMask: '9999' } }, 'imap:7:10'));
    assert.deepEqual(account, { kind: 'rejected', reason: 'duplicate_reference_mismatch' });
    const receiver = await p.app.ledger.ingest(alert(p, 150n, '422222222222', { receiver: 'other@icici' }, 'imap:7:11'));
    assert.deepEqual(receiver, { kind: 'rejected', reason: 'duplicate_reference_mismatch' });
    // Without an origin (a chain transfer) the rejection is named after the reference and the facts.
    const bare = await p.app.ledger.ingest(alert(p, 300n, '422222222222', { origin: undefined }));
    assert.deepEqual(bare, { kind: 'rejected', reason: 'duplicate_reference_mismatch' });
    const kept = (await p.app.payments.rejections()).filter((x) => x.reason === 'duplicate_reference_mismatch');
    assert.equal(kept.length, 3);
    assert.match((await doctorLine(p))!.message, /^3 /);
    assert.equal((await p.app.payments.list({})).length, 1);
  });

  test('a split payment (one transaction settling several intents) seen again with its whole amount is a duplicate', async (t) => {
    const { p } = await setup(t);
    // Recorded unmatched (no intent), then seen again: same total, a duplicate.
    const first = await p.app.ledger.ingest(alert(p, 12345n, '433333333333'));
    assert.equal(first.kind, 'unmatched');
    assert.equal((await p.app.ledger.ingest(alert(p, 12345n, '433333333333', {}, 'imap:7:3'))).kind, 'duplicate');
    assert.equal((await p.app.payments.rejections()).length, 0);
  });
});
