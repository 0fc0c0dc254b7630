// UPI through the real app: a DKIM-signed HDFC alert APPENDed to a real Dovecot → IMAP source
// (IDLE) → DKIM against a UDP DNS stub on loopback → ledger → settled; and the throughput of
// the alert inspector (parse + DKIM verify) alone, with the parse-only rate of the same run
// as the reference that shows what DKIM costs.
import { inspectAlert } from '../../src/methods/upi/inspect.ts';
import type { AlertVerdict, InspectOptions } from '../../src/methods/upi/alert.ts';
import { hdfcCredit, signingKit } from '../../test/helpers/bank-alerts.ts';
import { dnsStub } from '../../test/helpers/dns-stub.ts';
import { startDovecot, type Dovecot, upiDaemonSection } from '../../test/helpers/dovecot.ts';
import { dkimKit, options } from '../../test/helpers/upi-kit.ts';
import { latencyRows, startMethodPayd, untilSettled } from '../lib/methods-common.ts';
import { percentile, round, type BenchContext, type Row, type SectionResult } from '../lib/report.ts';

const ALERTS = 30;
const SETTLE_TIMEOUT_MS = 5_000;
const GOAL_MEDIAN_MS = 1_000;
/** Inspector throughput: each mode runs ROUNDS times for ROUND_MS, alternating, after a warm-up. */
const ROUNDS = 2;
const ROUND_MS = 1_000;
const WARMUP_MS = 300;
const DISTINCT_MESSAGES = 20;

const utr = (n: number) => `6326${String(10_000_000 + n).slice(-8)}`;

async function appendLatency(ctx: BenchContext): Promise<{ settle: number[]; append: number[]; first: number }> {
  const kit = signingKit();
  const dns = dnsStub(kit.zone);
  let dovecot: Dovecot | undefined;
  let p: Awaited<ReturnType<typeof startMethodPayd>> | undefined;
  try {
    dovecot = await startDovecot();
    const dnsServer = await dns.start();
    p = await startMethodPayd({
      UPI: upiDaemonSection(dovecot, dnsServer, { payeeName: 'Bench Shop' }),
    });
    const merchant = await p.app.merchants.get((await p.merchant()).clientId);
    const settle: number[] = [];
    const append: number[] = [];
    let first = NaN;
    // Alert 0 is a warm-up (the source's first connect and sync); alerts 1..ALERTS are measured.
    for (let i = 0; i <= ALERTS; i++) {
      const intent = await p.app.intents.create(merchant, { amount: (10_000 + i * 100 + 37) / 100, currency: 'UPI', order_id: `upi-lat-${i}` });
      const raw = await kit.sign(hdfcCredit({ rupees: intent.pay_amount.text, utr: utr(i), account: '4321' }));
      const t0 = performance.now();
      await dovecot.append(raw);
      const appended = performance.now() - t0;
      const ms = await untilSettled(p, intent.intent_id, t0, i === 0 ? 15_000 : SETTLE_TIMEOUT_MS);
      if (i === 0) first = ms;
      if (i > 0) {
        settle.push(ms);
        append.push(appended);
      }
    }
    ctx.progress(`upi: ${ALERTS} alerts settled`);
    return { settle, append, first };
  } finally {
    await p?.close();
    await dovecot?.dispose();
    await dns.stop();
  }
}

/** Messages per second of sequential inspectAlert calls over `ms`. */
async function rate(msgs: Buffer[], opts: InspectOptions, ms: number): Promise<number> {
  let n = 0;
  const t0 = performance.now();
  while (performance.now() - t0 < ms) await inspectAlert(msgs[n++ % msgs.length], opts);
  return n / ((performance.now() - t0) / 1000);
}

async function inspectThroughput(ctx: BenchContext): Promise<{ verify: number[]; parse: number[] }> {
  const kit = dkimKit();
  const msgs: Buffer[] = [];
  for (let i = 0; i < DISTINCT_MESSAGES; i++) {
    msgs.push(await kit.sign(hdfcCredit({ rupees: `${100 + i}.00`, utr: utr(1000 + i), account: '4321' }), { domain: 'hdfcbank.bank.in' }));
  }
  const verifyOpts = options(kit.resolver);
  const parseOpts = options(kit.resolver, { dkimRequired: false });
  // Both modes must really produce credits, or the rates measure an early exit.
  const check = (v: AlertVerdict, verified: boolean) => {
    if (v.kind !== 'credit' || v.auth.verified !== verified) throw new Error(`inspectAlert gave ${JSON.stringify(v, (_k, x) => (typeof x === 'bigint' ? String(x) : x))}`);
  };
  check(await inspectAlert(msgs[0], verifyOpts), true);
  check(await inspectAlert(msgs[0], parseOpts), false);
  await rate(msgs, verifyOpts, WARMUP_MS);
  await rate(msgs, parseOpts, WARMUP_MS);
  const verify: number[] = [];
  const parse: number[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    verify.push(await rate(msgs, verifyOpts, ROUND_MS));
    parse.push(await rate(msgs, parseOpts, ROUND_MS));
  }
  ctx.progress('upi: inspector throughput measured');
  return { verify, parse };
}

const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;

export async function upiSection(ctx: BenchContext): Promise<SectionResult> {
  ctx.progress(`upi: APPEND → settled with a real Dovecot (${ALERTS} alerts, one at a time)`);
  const { settle, append, first } = await appendLatency(ctx);
  ctx.progress('upi: inspectAlert throughput (DKIM verify vs parse only)');
  const { verify, parse } = await inspectThroughput(ctx);
  const median = percentile(settle, 50);
  const verifyRate = mean(verify);
  const parseRate = mean(parse);
  const rows: Row[] = [
    ...latencyRows('APPEND → settled', settle),
    { metric: 'APPEND → settled: goal met', value: median <= GOAL_MEDIAN_MS, note: `goal median <= ${GOAL_MEDIAN_MS} ms` },
    { metric: 'APPEND → settled, first alert', value: round(first, 0), unit: 'ms', note: "the warm-up alert: it starts the inspector's worker thread (started with the first mail, stopped after 60 s idle; here through tsx from the sources, slower than dist/)" },
    { metric: 'APPEND call alone: median', value: round(percentile(append, 50), 0), unit: 'ms', note: 'connect + login + APPEND + logout of the sending client' },
    { metric: 'inspect, DKIM verified', value: round(verifyRate, 0), unit: 'msg/s', note: `per round ${verify.map((x) => round(x, 0)).join(', ')}; ${round(1000 / verifyRate)} ms/msg` },
    { metric: 'inspect, parse only', value: round(parseRate, 0), unit: 'msg/s', note: `dkimRequired false; per round ${parse.map((x) => round(x, 0)).join(', ')}; ${round(1000 / parseRate)} ms/msg` },
    { metric: 'parse-only / DKIM-verified rate', value: round(parseRate / verifyRate), unit: 'x', note: 'what DKIM verification costs, same run' },
  ];
  return {
    title: 'UPI: bank alert → settled latency and alert inspection throughput',
    rows,
    notes: [
      'latency: real Dovecot + real app (IMAP IDLE, DKIM required, DNS from a UDP stub on 127.0.0.1); each alert pays its own open intent; from the start of the APPEND to status settled, polled every 10 ms; one warm-up alert not counted',
      `throughput: sequential inspectAlert over ${DISTINCT_MESSAGES} distinct DKIM-signed (RSA-2048) HDFC alerts, in-memory DNS resolver; ${ROUNDS} alternating rounds of ${ROUND_MS / 1000} s per mode`,
    ],
  };
}
