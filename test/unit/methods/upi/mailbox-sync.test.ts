import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, test } from 'node:test';
import { syncMailbox, type SyncContext } from '../../../../src/methods/upi/mailbox-sync.ts';
import { checkpointKey } from '../../../../src/methods/upi/mailbox-checkpoint.ts';
import { retryParked, type ParkedContext } from '../../../../src/methods/upi/mailbox-parked.ts';
import type { UpiMailStore } from '../../../../src/methods/upi/mail-store.ts';
import { FakeLedger, fakeInspector, fakeMail, fixedClock, memoryLogger, mailStoreOn } from '../../../helpers/upi-imap-fakes.ts';
import { forEachStore } from '../../../helpers/stores.ts';
import { MemoryMailbox } from './memory-mailbox.ts';

const HOUR = 3_600_000;
const KEY = checkpointKey({ user: 'payd', host: 'imap.test', mailbox: 'INBOX' });

// The mail store (parked and unread raw mail) on both stores.
forEachStore((on) => {
  describe('UPI mailbox sync', () => {
    let box: MemoryMailbox;
    let ledger: FakeLedger;
    let clock: ReturnType<typeof fixedClock>;
    let inspector: ReturnType<typeof fakeInspector>;
    let ctx: SyncContext;
    let store: UpiMailStore;
    let closeStore: () => Promise<void>;

    beforeEach(async () => {
      ({ store, close: closeStore } = await mailStoreOn(on));
      box = new MemoryMailbox();
      ledger = new FakeLedger();
      clock = fixedClock();
      inspector = fakeInspector();
      ctx = {
        key: KEY,
        vpa: 'shop@hdfcbank',
        backfillHours: 24,
        ledger,
        clock,
        log: memoryLogger(),
        inspect: (raw, receivedAt) => inspector.inspect(raw, { accounts: [], alertRecipients: ['merchant@example.com'], dkimRequired: true, resolver: async () => [], receivedAt }),
        store,
        parkRetryMs: 30_000,
        maxMessageBytes: 262_144,
      };
    });
    afterEach(() => closeStore());

    const parkedCtx = (over: Partial<ParkedContext> = {}): ParkedContext => ({
      key: KEY,
      vpa: 'shop@hdfcbank',
      ledger,
      store,
      clock,
      log: ctx.log,
      inspect: ctx.inspect,
      giveUpMs: 24 * HOUR,
      retryMs: 30_000,
      maxRetryMs: HOUR,
      ...over,
    });

    test('checkpoint key names user, host and mailbox', () => {
      assert.equal(KEY, 'upi:imap:payd@imap.test/INBOX');
    });

    test('a credit carries its mail (ref and raw bytes), kept as the rejection should its UTR arrive again with other facts', async () => {
      const mail = fakeMail('credit utr=632612345679 paise=100');
      const uid = box.add(mail, clock.now() - HOUR);
      await syncMailbox(box.view(), ctx);
      const { payment } = ledger.ingests[0];
      assert.equal(payment.origin?.ref, `imap:1000:${uid}`);
      assert.equal(Buffer.from(payment.origin!.raw!).toString(), Buffer.from(mail).toString());
    });

    test('a credit alert becomes a UPI payment, ingested together with the checkpoint past it', async () => {
      const uid = box.add(fakeMail('credit utr=632612345678 paise=49937'), clock.now() - HOUR);
      await syncMailbox(box.view(), ctx);
      assert.equal(ledger.ingests.length, 1);
      const { payment, checkpoint } = ledger.ingests[0];
      assert.deepEqual(checkpoint, { key: KEY, value: { uidValidity: '1000', lastUid: uid } });
      assert.equal(payment.method, 'UPI');
      assert.equal(payment.receiver, 'shop@hdfcbank');
      assert.equal(payment.amountMinor, 49937n);
      assert.equal(payment.txRef, '632612345678');
      assert.equal(payment.source, 'imap');
      assert.equal(payment.observedAt, clock.now());
      assert.equal(payment.occurredAt, Date.UTC(2026, 10, 22, 2, 15, 10));
      assert.deepEqual(payment.evidence, {
        bank: 'hdfc',
        accountMask: '**4321',
        payerVpa: 'asha.verma@okaxis',
        payerName: 'ASHA VERMA',
        messageId: '<fake@bank.test>',
        auth: { dkimDomain: 'hdfcbank.bank.in', selector: 's1', dmarc: 'pass', verified: true },
        utrDerived: false,
        uid,
      });
      // The inspector got the INTERNALDATE as the receive time.
      assert.equal(inspector.calls[0].opts.receivedAt, clock.now() - HOUR);
    });

    test('a rejected mail is kept with its raw bytes and reason, and the checkpoint moves past it', async () => {
      const raw = fakeMail('reject reason=dkim_fail');
      const uid = box.add(raw, clock.now());
      await syncMailbox(box.view(), ctx);
      assert.equal(ledger.ingests.length, 0);
      assert.equal(ledger.rejections.length, 1);
      const { observation, checkpoint } = ledger.rejections[0];
      assert.equal(observation.ref, `imap:1000:${uid}`);
      assert.equal(observation.reason, 'dkim_fail');
      assert.equal(observation.method, 'UPI');
      assert.equal(observation.source, 'imap');
      assert.equal(Buffer.from(observation.raw!).toString(), raw);
      assert.equal(observation.detail?.bank, 'hdfc');
      assert.deepEqual(checkpoint, { key: KEY, value: { uidValidity: '1000', lastUid: uid } });
    });

    test('a non-alert only advances the checkpoint', async () => {
      box.add('Subject: newsletter\r\n\r\nhi\r\n', clock.now());
      const uid = box.add(fakeMail('ignore'), clock.now());
      await syncMailbox(box.view(), ctx);
      assert.equal(ledger.ingests.length + ledger.rejections.length, 0);
      assert.deepEqual(ledger.checkpoints.get(KEY), { uidValidity: '1000', lastUid: uid });
    });

    test('first start looks back only backfillHours, then marks older mail as behind it', async () => {
      box.add(fakeMail('credit utr=111111111111'), clock.now() - 72 * HOUR);
      box.add(fakeMail('credit utr=222222222222'), clock.now() - 30 * HOUR); // same SEARCH day window, older than 24 h
      const recent = box.add(fakeMail('credit utr=333333333333'), clock.now() - 2 * HOUR);
      const old = box.add(fakeMail('credit utr=444444444444'), clock.now() - 48 * HOUR); // appended late with an old date
      await syncMailbox(box.view(), ctx);
      assert.deepEqual(ledger.recorded.map((p) => p.txRef), ['333333333333']);
      assert.deepEqual(ledger.checkpoints.get(KEY), { uidValidity: '1000', lastUid: old });
      assert.ok(recent < old);
    });

    test('first start on a mailbox with only old mail ingests nothing and starts after it', async () => {
      box.add(fakeMail('credit utr=111111111111'), clock.now() - 72 * HOUR);
      const last = box.add(fakeMail('credit utr=222222222222'), clock.now() - 50 * HOUR);
      await syncMailbox(box.view(), ctx);
      assert.equal(ledger.ingests.length, 0);
      assert.deepEqual(ledger.checkpoints.get(KEY), { uidValidity: '1000', lastUid: last });
      const fresh = box.add(fakeMail('credit utr=333333333333'), clock.now());
      await syncMailbox(box.view(), ctx);
      assert.deepEqual(ledger.recorded.map((p) => p.txRef), ['333333333333']);
      assert.deepEqual(ledger.checkpoints.get(KEY), { uidValidity: '1000', lastUid: fresh });
    });

    test('backfills everything after the checkpoint, however old, and never re-reads the last message (the * quirk)', async () => {
      ledger.checkpoints.set(KEY, { uidValidity: '1000', lastUid: 0 });
      box.add(fakeMail('credit utr=111111111111'), clock.now() - 72 * HOUR); // arrived while payd was stopped for days
      await syncMailbox(box.view(), ctx);
      assert.deepEqual(ledger.recorded.map((p) => p.txRef), ['111111111111']);
      box.fetched.length = 0;
      await syncMailbox(box.view(), ctx); // `2:*` matches UID 1 on a real server
      assert.deepEqual(box.fetched, []);
      assert.equal(ledger.ingests.length, 1);
    });

    test('a retry verdict parks the message with its raw bytes and the sync goes on past it', async () => {
      box.add(fakeMail('ignore'), clock.now());
      const raw = fakeMail('retry');
      const b = box.add(raw, clock.now() - 5000);
      const c = box.add(fakeMail('credit utr=555555555555'), clock.now());
      const first = await syncMailbox(box.view(), ctx);
      assert.equal(first.parked, 1);
      assert.deepEqual(ledger.recorded.map((p) => p.txRef), ['555555555555'], 'the later alert is not held up');
      assert.deepEqual(ledger.checkpoints.get(KEY), { uidValidity: '1000', lastUid: c });
      const [parked] = await store.due(KEY, clock.now() + 30_000, 10);
      assert.equal(parked.uid, b);
      assert.equal(parked.raw.toString(), raw);
      assert.equal(parked.receivedAt, clock.now() - 5000);
      assert.equal(parked.nextAttemptAt, clock.now() + 30_000);
      assert.deepEqual(await store.due(KEY, clock.now(), 10), [], 'not due before its first retry time');
    });

    test('a parked message is re-checked with backoff; when DNS answers it settles, and it leaves the parking', async () => {
      const b = box.add(fakeMail('retry'), clock.now());
      await syncMailbox(box.view(), ctx);
      clock.set(clock.now() + 30_000);
      assert.deepEqual(await retryParked(parkedCtx()), { settledOrKept: 0, waiting: 1 });
      const [again] = await store.due(KEY, clock.now() + HOUR, 10);
      assert.equal(again.attempts, 2);
      assert.equal(again.nextAttemptAt, clock.now() + 30_000, 'second delay');
      clock.set(clock.now() + 30_000);
      await retryParked(parkedCtx());
      assert.equal((await store.due(KEY, clock.now() + HOUR, 10))[0].nextAttemptAt, clock.now() + 60_000, 'third delay doubles');

      // DNS answers: the same bytes now verify (the fake inspector reads the verdict from them).
      let answering = false;
      const inspect = parkedCtx().inspect;
      const ctx2 = parkedCtx({ inspect: (raw, at) => (answering ? inspector.inspect(Buffer.from(raw.toString().replace('X-Fake-Verdict: retry', 'X-Fake-Verdict: credit utr=444444444444')), { accounts: [], alertRecipients: [], dkimRequired: true, resolver: async () => [], receivedAt: at }) : inspect(raw, at)) });
      answering = true;
      clock.set(clock.now() + 60_000);
      assert.deepEqual(await retryParked(ctx2), { settledOrKept: 1, waiting: 0 });
      assert.deepEqual(ledger.recorded.map((p) => p.txRef), ['444444444444']);
      assert.equal(ledger.recorded[0].evidence?.uid, b);
      assert.equal(await store.parkedCount(KEY), 0);
    });

    test('after retryHours a parked message becomes the rejection dns_unresolved, raw bytes kept', async () => {
      const raw = fakeMail('retry');
      const b = box.add(raw, clock.now());
      await syncMailbox(box.view(), ctx);
      clock.set(clock.now() + 2 * HOUR);
      await retryParked(parkedCtx({ giveUpMs: 2 * HOUR }));
      assert.equal(ledger.rejections.length, 1);
      const r = ledger.rejections[0].observation;
      assert.equal(r.reason, 'dns_unresolved');
      assert.equal(r.ref, `imap:1000:${b}`);
      assert.equal(Buffer.from(r.raw!).toString(), raw);
      assert.equal(r.detail?.lastError, 'dns_temperror');
      assert.equal(await store.parkedCount(KEY), 0);
      assert.equal(ledger.recorded.length, 0);
    });

    test('a verified alert no template reads is noted for the doctor with its bank, and the sync goes on', async () => {
      box.add(fakeMail('unread'), clock.now());
      box.add(fakeMail('credit utr=121212121212'), clock.now());
      const r = await syncMailbox(box.view(), ctx);
      assert.equal(r.unread, 1);
      assert.deepEqual(await store.unreadSince(clock.now() - HOUR), [{ bank: 'hdfc', count: 1 }]);
      assert.deepEqual(await store.unreadSince(clock.now() + 1), []);
      assert.ok((ctx.log as ReturnType<typeof memoryLogger>).lines.some((l) => l.level === 'warn' && /has the template changed/.test(l.msg)));
      assert.deepEqual(ledger.recorded.map((p) => p.txRef), ['121212121212']);
    });

    test('UIDVALIDITY change rescans the recent window without counting a payment twice', async () => {
      box.add(fakeMail('credit utr=632612345678 paise=49937'), clock.now() - HOUR);
      await syncMailbox(box.view(), ctx);
      // The server rebuilt the mailbox: same mail, new epoch, new UIDs.
      const raw = box.messages[0].source.toString();
      box.recreate('2000');
      box.add(raw, clock.now() - HOUR);
      const uid = box.add(fakeMail('credit utr=777777777777'), clock.now());
      await syncMailbox(box.view(), ctx);
      assert.deepEqual(ledger.ingests.map((i) => i.outcome.kind), ['unmatched', 'duplicate', 'unmatched']);
      assert.deepEqual(ledger.recorded.map((p) => p.txRef), ['632612345678', '777777777777']);
      assert.deepEqual(ledger.checkpoints.get(KEY), { uidValidity: '2000', lastUid: uid });
      assert.ok(ctx.log && (ctx.log as ReturnType<typeof memoryLogger>).lines.some((l) => l.msg.includes('UIDVALIDITY changed')));
    });

    test('an inspector that throws does not stall the mailbox: the mail is kept as rejected', async () => {
      box.add(fakeMail('throw'), clock.now());
      box.add(fakeMail('credit utr=888888888888'), clock.now());
      await syncMailbox(box.view(), ctx);
      assert.equal(ledger.rejections[0].observation.reason, 'inspector_error');
      assert.deepEqual(ledger.recorded.map((p) => p.txRef), ['888888888888']);
    });

    test('a message over maxMessageBytes is rejected too_large from its size alone: never fetched, never inspected', async () => {
      const uid = box.add(fakeMail('credit utr=777777777777') + 'x'.repeat(2_000), clock.now());
      await syncMailbox(box.view(), { ...ctx, maxMessageBytes: 1_000 });
      assert.deepEqual(ledger.rejections.map((r) => [r.observation.reason, r.observation.raw]), [['too_large', undefined]]);
      assert.equal(ledger.rejections[0].observation.detail?.maxMessageBytes, 1_000);
      assert.deepEqual([box.fetched, inspector.calls.length], [[], 0]);
      assert.equal((ledger.checkpoints.get(KEY) as { lastUid: number }).lastUid, uid);
    });

    test('the sender is screened from the header block: a refused one is rejected unparsed, with at most 64 KiB kept', async () => {
      box.add(fakeMail('credit utr=777777777778') + 'x'.repeat(100_000), clock.now());
      await syncMailbox(box.view(), { ...ctx, screen: (head) => (head.includes('hdfcbank.net') ? { reason: 'unknown_sender' } : undefined) });
      assert.equal(ledger.rejections[0].observation.reason, 'unknown_sender');
      assert.equal(ledger.rejections[0].observation.raw!.length, 64 * 1024);
      assert.deepEqual([box.fetched, inspector.calls.length], [[], 0]);
    });

    test('an unverified rejected mail keeps its first 64 KiB; its size is noted', async () => {
      const raw = fakeMail('reject reason=dkim_fail') + 'x'.repeat(100_000);
      box.add(raw, clock.now());
      await syncMailbox(box.view(), ctx);
      const { observation } = ledger.rejections[0];
      assert.equal(observation.reason, 'dkim_fail');
      assert.equal(Buffer.from(observation.raw!).toString(), raw.slice(0, 64 * 1024));
      assert.equal(observation.detail?.rawBytes, raw.length);
    });

    test('a message marked as being inspected by an earlier run (the process died on it) is rejected inspector_crash, not inspected again', async () => {
      const deadly = box.add(fakeMail('credit utr=777777777779'), clock.now());
      box.add(fakeMail('credit utr=777777777780'), clock.now());
      await store.markInspecting({ mailbox: KEY, ref: `imap:1000:${deadly}`, uid: deadly, startedAt: clock.now(), holder: 'the-run-that-died' });
      await syncMailbox(box.view(), { ...ctx, runId: 'this-run' });
      assert.deepEqual(ledger.rejections.map((r) => r.observation.reason), ['inspector_crash']);
      assert.equal(inspector.calls.length, 1, 'only the next message was inspected');
      assert.deepEqual(ledger.recorded.map((p) => p.txRef), ['777777777780']);
      assert.equal(await store.inspectingHolder(KEY, `imap:1000:${deadly}`), undefined, 'the mark is gone with the outcome');
    });

    test('a ledger failure surfaces and leaves the checkpoint where it was, so the message is tried again', async () => {
      ledger.checkpoints.set(KEY, { uidValidity: '1000', lastUid: 0 });
      box.add(fakeMail('credit utr=999999999999'), clock.now());
      ledger.failNext = new Error('database is locked');
      await assert.rejects(syncMailbox(box.view(), ctx), /database is locked/);
      assert.deepEqual(ledger.checkpoints.get(KEY), { uidValidity: '1000', lastUid: 0 });
      await syncMailbox(box.view(), ctx);
      assert.deepEqual(ledger.recorded.map((p) => p.txRef), ['999999999999']);
    });

    test('a malformed stored checkpoint counts as none (bounded rescan, not a crash)', async () => {
      ledger.checkpoints.set(KEY, { uidValidity: 1000, lastUid: '3' });
      box.add(fakeMail('credit utr=123123123123'), clock.now() - 100 * HOUR);
      const uid = box.add(fakeMail('credit utr=321321321321'), clock.now());
      await syncMailbox(box.view(), ctx);
      assert.deepEqual(ledger.recorded.map((p) => p.txRef), ['321321321321']);
      assert.deepEqual(ledger.checkpoints.get(KEY), { uidValidity: '1000', lastUid: uid });
    });

    test('stops between messages when aborted', async () => {
      const ac = new AbortController();
      box.add(fakeMail('credit utr=100000000001'), clock.now());
      box.add(fakeMail('credit utr=100000000002'), clock.now());
      const inspect = ctx.inspect;
      ctx = { ...ctx, signal: ac.signal, inspect: async (raw, at) => (ac.abort(), inspect(raw, at)) };
      await syncMailbox(box.view(), ctx);
      assert.deepEqual(ledger.recorded.map((p) => p.txRef), ['100000000001']);
    });
  });
});
