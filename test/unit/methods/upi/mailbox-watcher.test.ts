import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import { describe, test } from 'node:test';
import { describeImapFailure } from '../../../../src/methods/upi/mailbox-errors.ts';
import { AUTO_IDLE_DELAY_MS, imapOptions, passwordCredentials } from '../../../../src/methods/upi/mailbox-client.ts';
import { parkedRetryDelay } from '../../../../src/methods/upi/mailbox-parked.ts';
import { watchMailbox, type WatcherOptions } from '../../../../src/methods/upi/mailbox-watcher.ts';
import { Secret } from '../../../../src/config/secret.ts';
import { FakeLedger, fakeInspector, fakeMail, memoryLogger, midRandom, unusedMailStore } from '../../../helpers/upi-imap-fakes.ts';

/** Just enough of ImapFlow for the watcher: scripted connect, one mailbox, events. */
class FakeClient extends EventEmitter {
  closed = false;
  locks = 0;
  selects = 0;
  mailbox: { uidValidity: bigint; uidNext: number } | false = false;
  constructor(
    private readonly connectError: Error | undefined,
    private readonly mail: string[],
    private readonly server = { uidValidity: 7n },
  ) {
    super();
  }
  async mailboxOpen() {
    this.selects += 1;
    this.mailbox = { uidValidity: this.server.uidValidity, uidNext: this.mail.length + 1 };
    return this.mailbox;
  }
  async connect() {
    if (this.connectError) throw this.connectError;
  }
  async getMailboxLock() {
    this.locks += 1;
    if (!this.mailbox) await this.mailboxOpen(); // like imapflow: a lock re-uses the open mailbox
    return { path: 'INBOX', release: () => {} };
  }
  async search(q: { uid?: string; since?: Date }) {
    const from = q.uid ? Number(q.uid.split(':')[0]) : 1;
    return this.mail.map((_, i) => i + 1).filter((uid) => uid >= from);
  }
  async fetchOne(uid: string, q: { size?: boolean; source?: { maxLength?: number } }) {
    const n = Number(uid);
    const source = Buffer.from(this.mail[n - 1]);
    if (q.size) return { uid: n, size: source.length, internalDate: new Date() };
    return { uid: n, source: source.subarray(0, q.source?.maxLength ?? source.length), internalDate: new Date() };
  }
  close() {
    if (this.closed) return;
    this.closed = true;
    queueMicrotask(() => this.emit('close'));
  }
}

function options(factory: () => FakeClient, ledger = new FakeLedger()): WatcherOptions & { log: ReturnType<typeof memoryLogger> } {
  const log = memoryLogger();
  const { inspect } = fakeInspector();
  return {
    imap: { host: '127.0.0.1', port: 1, secure: false, user: 'payd', credentials: passwordCredentials('payd', new Secret('x')), mailbox: 'INBOX' },
    factory: factory as unknown as WatcherOptions['factory'],
    sync: {
      key: 'k',
      vpa: 'shop@hdfcbank',
      backfillHours: 24,
      ledger,
      clock: { now: () => Date.now() },
      log,
      inspect: (raw) => inspect(raw, { accounts: [], alertRecipients: ['merchant@example.com'], dkimRequired: true, resolver: async () => [] }),
      store: unusedMailStore(),
      parkRetryMs: 60_000,
      maxMessageBytes: 262_144,
    },
    log,
    random: midRandom(),
    resyncMs: 60_000,
    backoff: { baseMs: 20, maxMs: 80 },
  };
}

const until = async (cond: () => boolean, ms: number, what: string) => {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
};

describe('UPI mailbox watcher', () => {
  test('imapflow is told to IDLE almost at once, not after its 15 s default', () => {
    const o = imapOptions({ host: 'h', port: 993, secure: true, user: 'u' }, { user: 'u', pass: 'pw' });
    assert.equal(o.autoIdleDelay, AUTO_IDLE_DELAY_MS);
    assert.ok(AUTO_IDLE_DELAY_MS < 1000);
    assert.equal(o.disableAutoIdle, undefined);
    assert.deepEqual(o.auth, { user: 'u', pass: 'pw' });
  });

  test('parked mail is re-checked after growing delays, capped', () => {
    const c = { retryMs: 30_000, maxRetryMs: 3_600_000 };
    assert.deepEqual([1, 2, 3, 4].map((k) => parkedRetryDelay(k, c)), [30_000, 60_000, 120_000, 240_000]);
    assert.equal(parkedRetryDelay(20, c), 3_600_000);
  });

  test('a refused connection is retried with a NEW client each time and never throws; abort ends it promptly', async () => {
    const clients: FakeClient[] = [];
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), { code: 'ECONNREFUSED' });
    const o = options(() => {
      const c = new FakeClient(refused, []);
      clients.push(c);
      return c;
    });
    const ac = new AbortController();
    const running = watchMailbox(o, ac.signal);
    await until(() => clients.length >= 3, 2000, 'three connection attempts');
    assert.equal(new Set(clients).size, clients.length);
    const t0 = Date.now();
    ac.abort();
    await running;
    assert.ok(Date.now() - t0 < 200, 'stops promptly');
    const warn = o.log.lines.find((l) => l.level === 'warn');
    assert.match(String(warn?.fields?.error), /connection refused/);
  });

  test('an EXISTS push triggers a sync; a closed connection is replaced and synced again', async () => {
    const mail = [fakeMail('credit utr=100000000001')];
    const clients: FakeClient[] = [];
    const ledger = new FakeLedger();
    const o = options(() => {
      const c = new FakeClient(undefined, mail);
      clients.push(c);
      return c;
    }, ledger);
    const ac = new AbortController();
    const running = watchMailbox(o, ac.signal);
    await ledger.waitFor(() => ledger.recorded.length === 1, 2000, 'first credit');

    mail.push(fakeMail('credit utr=100000000002'));
    clients[0].emit('exists', { path: 'INBOX', count: 2, prevCount: 1 });
    await ledger.waitFor(() => ledger.recorded.length === 2, 2000, 'credit after EXISTS');
    assert.equal(clients.length, 1);

    mail.push(fakeMail('credit utr=100000000003'));
    clients[0].close(); // server went away
    await ledger.waitFor(() => ledger.recorded.length === 3, 2000, 'credit after reconnect');
    assert.equal(clients.length, 2);
    ac.abort();
    await running;
    assert.ok(clients.every((c) => c.closed));
  });

  test('the periodic re-sync selects the mailbox again and so notices a new UIDVALIDITY', async () => {
    const mail = [fakeMail('credit utr=100000000001')];
    const server = { uidValidity: 7n };
    const ledger = new FakeLedger();
    const clients: FakeClient[] = [];
    const o = {
      ...options(() => {
        const c = new FakeClient(undefined, mail, server);
        clients.push(c);
        return c;
      }, ledger),
      resyncMs: 30,
    };
    const ac = new AbortController();
    const running = watchMailbox(o, ac.signal);
    await ledger.waitFor(() => ledger.recorded.length === 1, 2000, 'first credit');
    server.uidValidity = 8n; // mailbox re-created behind the open session's back
    mail.push(fakeMail('credit utr=100000000002'));
    await ledger.waitFor(() => (ledger.checkpoints.get('k') as { uidValidity: string }).uidValidity === '8', 2000, 'the new epoch');
    await ledger.waitFor(() => ledger.recorded.length === 2, 2000, 'the new credit');
    assert.equal(clients.length, 1, 'same connection');
    assert.ok(clients[0].selects >= 2);
    assert.ok(ledger.ingests.some((i) => i.outcome.kind === 'duplicate'), 'the rescan saw the old alert again, as a duplicate');
    ac.abort();
    await running;
  });
});

describe('IMAP failure messages', () => {
  const where = { host: 'imap.example.com', port: 993, user: 'payd', mailbox: 'Alerts' };
  test('name the cause an operator can fix', () => {
    assert.match(describeImapFailure({ authenticationFailed: true }, where), /authentication failed/);
    assert.match(describeImapFailure(Object.assign(new Error('x'), { code: 'ECONNREFUSED' }), where), /imap\.example\.com:993: connection refused/);
    assert.match(describeImapFailure(Object.assign(new Error('x'), { code: 'ENOTFOUND' }), where), /cannot resolve IMAP host imap\.example\.com/);
    assert.match(describeImapFailure({ serverResponseCode: 'NONEXISTENT' }, where), /mailbox "Alerts" does not exist/);
    assert.match(describeImapFailure(new Error('weird'), where), /IMAP error at imap\.example\.com:993: weird/);
  });
});
