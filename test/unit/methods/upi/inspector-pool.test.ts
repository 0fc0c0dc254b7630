// The alert inspector's worker thread (src/methods/upi/inspector-pool.ts) with the real inspector:
// a message whose inspection runs long (a huge HTML table) is cut off at the wall-clock limit without
// blocking this thread, the next message gets a fresh worker, and time spent waiting for DNS
// answers does not count against the limit. The worker starts with the first message and stops when idle.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, test } from 'node:test';
import { createInspectorPool } from '../../../../src/methods/upi/inspector-pool.ts';
import { memoryLogger } from '../../../helpers/upi-imap-fakes.ts';

const pool = createInspectorPool({ timeoutMs: 1_500, log: memoryLogger() });
after(() => pool.close());
const opts = (resolver: (name: string, rrtype: string) => Promise<unknown>) => ({ accounts: [], alertRecipients: ['merchant@example.com'], dkimRequired: true, resolver });
const nxdomain = async () => {
  throw Object.assign(new Error('no record'), { code: 'ENOTFOUND' });
};

// A 2 MB HTML table from a bank's domain: flattening it takes ~6 s inside the HTML library on a quiet 2-core VM
// (the bank patterns themselves are linear, test/unit/methods/upi/linear-time.test.ts).
const rows = '<tr><td>Amount</td><td>Rs.1.00</td></tr>'.repeat(Math.ceil(2_000_000 / 41));
const slow = Buffer.from(`From: HDFC Bank InstaAlerts <alerts@hdfcbank.bank.in>\r\nSubject: x\r\nMIME-Version: 1.0\r\nContent-Type: text/html; charset=UTF-8\r\n\r\n<html><body><table>${rows}</table></body></html>\r\n`);

test('a message past the limit is rejected inspector_timeout while this thread stays free; the next one is inspected by a new worker', async () => {
  await pool.inspect(Buffer.from('From: warm@example.com\r\n\r\n'), opts(nxdomain)); // the worker's start is not what is measured
  let lag = 0;
  let last = performance.now();
  const tick = setInterval(() => {
    const now = performance.now();
    lag = Math.max(lag, now - last - 10);
    last = now;
  }, 10);
  const t0 = performance.now();
  const verdict = await pool.inspect(slow, opts(nxdomain));
  const took = performance.now() - t0;
  clearInterval(tick);
  assert.deepEqual(verdict, { kind: 'reject', reason: 'inspector_timeout', detail: { limitMs: 1_500 } });
  assert.ok(took >= 1_500 && took < 10_000, `cut off after ${took.toFixed(0)} ms`);
  assert.ok(lag < 500, `this thread's timers were held up ${lag.toFixed(0)} ms`); // slack: a shared, loaded machine
  assert.deepEqual(await pool.inspect(Buffer.from('From: someone@example.net\r\n\r\nhello'), opts(nxdomain)), { kind: 'ignore', reason: 'unknown_sender' });
});

test('time spent waiting for DNS does not count against the limit; DNS errors reach the inspector with their code', async () => {
  const asked: string[] = [];
  // An unsigned HDFC credit: the inspector asks for the DMARC record before it can say dkim_missing.
  const mail = Buffer.from(
    'From: HDFC Bank InstaAlerts <alerts@hdfcbank.bank.in>\r\nTo: merchant@example.com\r\nSubject: View: Account update for your HDFC Bank A/c\r\nDate: Sun, 22 Nov 2026 07:45:10 +0530\r\n\r\n' +
      "We're writing to inform you that Rs.499.37 has been successfully credited to your HDFC Bank account ending in 4321.\r\n\r\nTransaction Details:\r\na. Date: 22-11-26\r\nb. Sender: ASHA VERMA (VPA: asha.verma@okaxis)\r\nc. UPI Reference No.: 632612345678\r\n",
  );
  const verdict = await pool.inspect(mail, opts(async (name) => {
    asked.push(name);
    await new Promise((r) => setTimeout(r, 2_000)); // each answer takes 2 s: over the 1.5 s limit
    throw Object.assign(new Error('no record'), { code: 'ENOTFOUND' });
  }));
  assert.ok(asked.length >= 1, `DNS questions: ${asked.join(', ')}`);
  assert.equal(verdict.kind, 'reject');
  assert.notEqual((verdict as { reason: string }).reason, 'inspector_timeout');
});

/** Threads of this process now (Linux): a live inspector worker is one more. */
const threads = () => Number(/Threads:\s+(\d+)/.exec(readFileSync('/proc/self/status', 'utf8'))![1]);
const settle = async (cond: () => boolean, ms: number) => {
  for (const end = performance.now() + ms; !cond() && performance.now() < end; ) await new Promise((r) => setTimeout(r, 20));
};

test('the worker starts with the first message, stops after the idle period, and the next message starts a new one', async () => {
  const log = memoryLogger();
  const before = threads();
  const lazy = createInspectorPool({ timeoutMs: 30_000, idleMs: 400, log });
  try {
    await new Promise((r) => setTimeout(r, 300));
    assert.equal(log.lines.filter((l) => l.msg === 'alert inspector ready').length, 0, 'no worker before a message');
    assert.equal(threads(), before, 'no thread before a message');
    const unknown = { kind: 'ignore', reason: 'unknown_sender' };
    assert.deepEqual(await lazy.inspect(Buffer.from('From: someone@example.net\r\n\r\nhello'), opts(nxdomain)), unknown);
    const busy = threads();
    assert.ok(busy > before, `a worker thread while busy (${before} → ${busy})`);
    await settle(() => log.lines.some((l) => l.msg === 'alert inspector stopped while idle') && threads() < busy, 10_000);
    assert.ok(log.lines.some((l) => l.msg === 'alert inspector stopped while idle'), 'stopped after the idle period');
    assert.ok(threads() < busy, `its thread is gone (${busy} → ${threads()})`);
    assert.deepEqual(await lazy.inspect(Buffer.from('From: other@example.net\r\n\r\nhello'), opts(nxdomain)), unknown);
    assert.equal(log.lines.filter((l) => l.msg === 'alert inspector ready').length, 2, 'a new worker for the next message');
  } finally {
    await lazy.close();
  }
});
