// The UPI mailbox source against a real Dovecot with the real imapflow client.
// The alert inspector is the fake one (verdict from an X-Fake-Verdict header): these tests are
// about the mailbox watcher; upi-imap-dkim.test.ts runs the real inspector end to end.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Secret } from '../../src/config/secret.ts';
import { createUpiSource, type UpiSourceConfig } from '../../src/methods/upi/imap-source.ts';
import { checkpointKey } from '../../src/methods/upi/mailbox-checkpoint.ts';
import type { PaymentSource } from '../../src/methods/source.ts';
import { startDovecot, upiSourceConfig, type Dovecot } from '../helpers/dovecot.ts';
import { FakeLedger, fakeInspector, fakeMail, memoryLogger, sqliteMailStore } from '../helpers/upi-imap-fakes.ts';

const HOUR = 3_600_000;

let dovecot: Dovecot;
let mail: Awaited<ReturnType<typeof sqliteMailStore>>;
const running = new Set<() => Promise<void>>();

const config = (mailbox: string, imap: Partial<UpiSourceConfig['imap']> = {}) => upiSourceConfig(dovecot, mailbox, imap);

function source(cfg: UpiSourceConfig, ledger: FakeLedger) {
  const log = memoryLogger();
  const src = createUpiSource(cfg, {
    ledger,
    store: mail.store,
    clock: { now: () => Date.now() },
    random: { bytes: (n) => new Uint8Array(n), uuid: () => crypto.randomUUID(), float: () => Math.random() },
    log,
    inspect: fakeInspector().inspect,
    backoff: { baseMs: 100, maxMs: 1000 },
  });
  return { src, log };
}

/** Runs a source until stop() (or the after hook); run() must never reject. */
function start(src: PaymentSource) {
  const ac = new AbortController();
  let outcome: unknown = 'running';
  const done = src.run(ac.signal).then(
    () => void (outcome = 'returned'),
    (err) => void (outcome = err),
  );
  const stop = async () => {
    ac.abort();
    await done;
    running.delete(stop);
    assert.equal(outcome, 'returned', 'run() resolved instead of throwing');
  };
  running.add(stop);
  return { stop, state: () => outcome };
}

/** Waits until the source has synced once (it has written its checkpoint) and gone idle. */
async function synced(ledger: FakeLedger, mailbox: string) {
  const key = checkpointKey({ user: 'payd', host: dovecot.host, mailbox });
  await ledger.waitFor(() => ledger.checkpoints.has(key), 5000, 'first sync');
  await new Promise((r) => setTimeout(r, 300)); // well past the auto-IDLE delay
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('UPI mailbox source on Dovecot', () => {
  before(async () => {
    dovecot = await startDovecot();
    mail = await sqliteMailStore();
  });
  after(async () => {
    for (const stop of [...running]) await stop().catch(() => {});
    await dovecot?.dispose();
    await mail?.close();
  });

  test('doctor check: OK for a good login, clear messages for bad password, missing mailbox, closed port', async () => {
    const ledger = new FakeLedger();
    const ok = await source(config('INBOX'), ledger).src.check(AbortSignal.timeout(10_000));
    assert.equal(ok.ok, true);
    assert.match(ok.message, /mailbox "INBOX"/);

    const badPw = await source(config('INBOX', { password: new Secret('wrong') }), ledger).src.check(AbortSignal.timeout(10_000));
    assert.equal(badPw.ok, false);
    assert.match(badPw.message, /authentication failed/);
    assert.doesNotMatch(badPw.message, /wrong/);

    const missing = await source(config('NoSuchBox'), ledger).src.check(AbortSignal.timeout(10_000));
    assert.equal(missing.ok, false);
    assert.match(missing.message, /mailbox "NoSuchBox" does not exist/);

    const closed = await source(config('INBOX', { port: await closedPort() }), ledger).src.check(AbortSignal.timeout(10_000));
    assert.equal(closed.ok, false);
    assert.match(closed.message, /connection refused/);
  });

  test('doctor check: verified alerts no template read in the last 24 h fail the check, by bank; parked alerts are counted', async () => {
    const ledger = new FakeLedger();
    const { src } = source(config('INBOX'), ledger);
    const now = Date.now();
    for (const [i, at] of [now - 1000, now - 2000, now - 23 * HOUR, now - 25 * HOUR].entries()) {
      await mail.store.noteUnread({ ref: `imap:1:${i + 1}`, mailbox: 'x', bank: 'hdfc', subject: 'View: Account update', raw: Buffer.from('raw'), observedAt: at });
    }
    await mail.store.noteUnread({ ref: 'imap:1:9', mailbox: 'x', bank: 'axis', raw: Buffer.from('raw'), observedAt: now });
    const key = checkpointKey({ user: 'payd', host: dovecot.host, mailbox: 'INBOX' });
    await mail.store.park({ ref: 'imap:1:10', mailbox: key, uidValidity: '1', uid: 10, raw: Buffer.from('raw'), reason: 'dns_temperror', parkedAt: now, attempts: 1, nextAttemptAt: now + HOUR });
    const r = await src.check(AbortSignal.timeout(10_000));
    assert.equal(r.ok, false, 'template churn is loud');
    assert.match(r.message, /IMAP .* OK/);
    assert.match(r.message, /1 AXIS alert in the last 24 h could not be read — has the template changed\?/);
    assert.match(r.message, /3 HDFC alerts in the last 24 h could not be read — has the template changed\?/);
    assert.match(r.message, /1 alert parked until the bank's DNS answers/);
    await mail.db.deleteFrom('upi_unread_alerts').execute();
    await mail.db.deleteFrom('upi_parked_mail').execute();
    assert.equal((await src.check(AbortSignal.timeout(10_000))).ok, true);
  });

  test('a credit alert APPENDed while idle is ingested within a second or so (IDLE push), without marking it \\Seen', async (t) => {
    await dovecot.createMailbox('Push');
    const ledger = new FakeLedger();
    const run = start(source(config('Push'), ledger).src);
    await synced(ledger, 'Push');

    const t0 = Date.now();
    const uid = await dovecot.append(fakeMail('credit utr=632612345678 paise=49937'), { mailbox: 'Push' });
    await ledger.waitFor(() => ledger.recorded.length === 1, 3000, 'the credit');
    const elapsed = Date.now() - t0;
    assert.ok(elapsed < 3000, `ingested after ${elapsed} ms`);
    t.diagnostic(`credit ingested ${elapsed} ms after APPEND (IDLE push)`);

    const { payment, checkpoint } = ledger.ingests[0];
    assert.equal(payment.txRef, '632612345678');
    assert.equal(payment.amountMinor, 49937n);
    assert.equal(payment.receiver, 'shop@hdfcbank');
    assert.equal(payment.evidence?.uid, uid);
    assert.deepEqual(checkpoint?.value, { uidValidity: await dovecot.uidValidity('Push'), lastUid: uid });
    assert.ok(!(await dovecot.flags(uid, 'Push')).includes('\\Seen'), 'payd never sets \\Seen');
    await run.stop();
  });

  test('mail from no configured bank is rejected unknown_sender from its header, unparsed; a rejected mail is kept with its raw bytes', async () => {
    await dovecot.createMailbox('Mixed');
    const ledger = new FakeLedger();
    const run = start(source(config('Mixed'), ledger).src);
    await synced(ledger, 'Mixed');
    const key = checkpointKey({ user: 'payd', host: dovecot.host, mailbox: 'Mixed' });

    const newsletter = await dovecot.append('From: news@shop.test\r\nSubject: Sale!\r\n\r\nBuy now\r\n', { mailbox: 'Mixed' });
    await ledger.waitFor(() => (ledger.checkpoints.get(key) as { lastUid: number }).lastUid === newsletter, 3000, 'checkpoint past the newsletter');
    assert.equal(ledger.ingests.length, 0);
    assert.deepEqual(ledger.rejections.map((r) => [r.observation.reason, r.observation.detail?.from]), [['unknown_sender', ['news@shop.test']]]);
    // ICICI is a bank, but not one the operator receives payments at (accounts lists HDFC only).
    const icici = await dovecot.append(fakeMail('credit utr=111111111111').replace('alerts@hdfcbank.net', 'alerts@icicibank.com'), { mailbox: 'Mixed' });
    await ledger.waitFor(() => ledger.rejections.length === 2, 3000, 'the ICICI mail rejected');
    assert.equal(ledger.rejections[1].observation.reason, 'unknown_sender');
    assert.equal((ledger.checkpoints.get(key) as { lastUid: number }).lastUid, icici);

    const forged = fakeMail('reject reason=dkim_fail', { subject: 'View: Account update for your HDFC Bank A/c' });
    const uid = await dovecot.append(forged, { mailbox: 'Mixed' });
    await ledger.waitFor(() => ledger.rejections.length === 3, 3000, 'the rejection');
    const { observation, checkpoint } = ledger.rejections[2];
    assert.equal(observation.reason, 'dkim_fail');
    assert.equal(observation.ref, `imap:${await dovecot.uidValidity('Mixed')}:${uid}`);
    assert.equal(Buffer.from(observation.raw!).toString(), forged, 'raw bytes kept as received');
    assert.equal((checkpoint?.value as { lastUid: number }).lastUid, uid);
    assert.equal(ledger.ingests.length, 0);
    await run.stop();
  });

  test('first start backfills only the last backfillHours', async () => {
    await dovecot.createMailbox('First');
    await dovecot.append(fakeMail('credit utr=100000000001'), { mailbox: 'First', internalDate: new Date(Date.now() - 72 * HOUR) });
    await dovecot.append(fakeMail('credit utr=100000000002'), { mailbox: 'First', internalDate: new Date(Date.now() - 2 * HOUR) });
    const ledger = new FakeLedger();
    const run = start(source(config('First'), ledger).src);
    await synced(ledger, 'First');
    assert.deepEqual(ledger.recorded.map((p) => p.txRef), ['100000000002']);
    await run.stop();
  });

  test('mail that arrives while payd is stopped is ingested by the next instance; old mail is not ingested twice', async () => {
    await dovecot.createMailbox('Downtime');
    const ledger = new FakeLedger();
    const first = start(source(config('Downtime'), ledger).src);
    await synced(ledger, 'Downtime');
    await dovecot.append(fakeMail('credit utr=200000000001'), { mailbox: 'Downtime' });
    await ledger.waitFor(() => ledger.recorded.length === 1, 3000, 'the first credit');
    await first.stop();

    await dovecot.append(fakeMail('credit utr=200000000002'), { mailbox: 'Downtime' });
    await dovecot.append(fakeMail('ignore'), { mailbox: 'Downtime' });
    const second = start(source(config('Downtime'), ledger).src);
    await ledger.waitFor(() => ledger.recorded.length === 2, 5000, 'the credit sent while stopped');
    await sleep(300);
    assert.deepEqual(ledger.ingests.map((i) => i.payment.txRef), ['200000000001', '200000000002'], 'each mail ingested exactly once');
    await second.stop();
  });

  test('server restart: the watcher reconnects and misses nothing delivered while down or just after', async () => {
    await dovecot.createMailbox('Restart');
    const ledger = new FakeLedger();
    const { src, log } = source(config('Restart'), ledger);
    const run = start(src);
    await synced(ledger, 'Restart');

    await dovecot.stop();
    dovecot.deliver(fakeMail('credit utr=300000000001'), 'Restart'); // the MTA delivered while IMAP was down
    await sleep(500); // the watcher notices and backs off
    await dovecot.restart();
    await dovecot.append(fakeMail('credit utr=300000000002'), { mailbox: 'Restart' });

    await ledger.waitFor(() => ledger.recorded.length === 2, 10_000, 'both credits after the restart');
    assert.deepEqual(ledger.recorded.map((p) => p.txRef).sort(), ['300000000001', '300000000002']);
    assert.equal(run.state(), 'running');
    assert.ok(log.lines.some((l) => l.level === "warn" && /reconnecting/.test(l.msg)), JSON.stringify(log.lines));

    // And IDLE works on the new connection.
    await sleep(300);
    await dovecot.append(fakeMail('credit utr=300000000003'), { mailbox: 'Restart' });
    await ledger.waitFor(() => ledger.recorded.length === 3, 3000, 'a credit pushed on the new connection');
    await run.stop();
  });

  test('UIDVALIDITY change: the recent window is rescanned without counting a payment twice', async () => {
    await dovecot.createMailbox('Epoch');
    const ledger = new FakeLedger();
    const key = checkpointKey({ user: 'payd', host: dovecot.host, mailbox: 'Epoch' });
    // Dovecot does not tell an open session its mailbox was re-created: the periodic re-sync finds out.
    const run = start(source(config('Epoch', { resyncSeconds: 1 }), ledger).src);
    await synced(ledger, 'Epoch');
    await dovecot.append(fakeMail('credit utr=400000000001'), { mailbox: 'Epoch' });
    await ledger.waitFor(() => ledger.recorded.length === 1, 3000, 'the first credit');
    const before = await dovecot.uidValidity('Epoch');

    // The mailbox is rebuilt (e.g. a migration): same alert again, new epoch, plus a new alert.
    await dovecot.recreateMailbox('Epoch');
    const after = await dovecot.uidValidity('Epoch');
    assert.notEqual(after, before);
    await dovecot.append(fakeMail('credit utr=400000000001'), { mailbox: 'Epoch' });
    const uid = await dovecot.append(fakeMail('credit utr=400000000002'), { mailbox: 'Epoch' });

    await ledger.waitFor(() => ledger.recorded.length === 2, 10_000, 'the new credit');
    await ledger.waitFor(() => (ledger.checkpoints.get(key) as { uidValidity: string }).uidValidity === after, 3000, 'new epoch in the checkpoint');
    assert.deepEqual(ledger.recorded.map((p) => p.txRef), ['400000000001', '400000000002']);
    assert.ok(ledger.ingests.some((i) => i.payment.txRef === '400000000001' && i.outcome.kind === 'duplicate'), 'the re-seen alert was a duplicate');
    assert.deepEqual(ledger.checkpoints.get(key), { uidValidity: after, lastUid: uid });
    await run.stop();
  });

  test('unreachable server: run() keeps backing off without throwing and stops promptly on abort', async () => {
    const ledger = new FakeLedger();
    const { src, log } = source(config('INBOX', { port: await closedPort() }), ledger);
    const run = start(src);
    await sleep(800);
    const attempts = log.lines.filter((l) => l.level === 'warn' && /mailbox .*backing off/.test(l.msg));
    assert.ok(attempts.length >= 2, `retried ${attempts.length} times`);
    assert.match(String(attempts[0].fields?.error), /connection refused/);
    assert.equal(run.state(), 'running');
    const t0 = Date.now();
    await run.stop();
    assert.ok(Date.now() - t0 < 500, 'stopped promptly');
  });
});

/** A loopback port nothing listens on. */
async function closedPort(): Promise<number> {
  const { createServer } = await import('node:net');
  return new Promise((resolve) => {
    const srv = createServer().listen(0, '127.0.0.1', () => {
      const port = (srv.address() as { port: number }).port;
      srv.close(() => resolve(port));
    });
  });
}
