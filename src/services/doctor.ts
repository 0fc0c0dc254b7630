import type { Db } from '../db/open.ts';
import type { Clock } from '../domain/ports.ts';
import type { PaymentSource } from '../methods/source.ts';
import { ageText as describeAge } from '../domain/notify/text.ts';
import type { MethodSilence } from '../methods/method.ts';
import type { PairStatus } from '../pricing/book.ts';
import { describeLoneSource, describePair } from '../pricing/describe.ts';
import type { LoneSource } from '../pricing/index.ts';
import { configurePairHint } from '../pricing/suggest.ts';
import { FIAT_CODES, isFiat, type Fiat } from '../domain/rates.ts';
import { isoUtc } from '../domain/iso-time.ts';

export interface DoctorLine {
  ok: boolean;
  what: string;
  message: string;
}

/**
 * `payd doctor`: the config, the database and every enabled upstream, one line each.
 * The caller prints the lines; any line not ok makes the run fail.
 */
/** How far back `doctor` looks for references that arrived twice with other facts, ms. */
const MISMATCH_WINDOW_MS = 7 * 86_400_000;

export function createDoctor(deps: {
  dbFile: string;
  db: Db;
  livemode: boolean;
  methods: string[];
  sources: () => Promise<PaymentSource[]>;
  timeoutMs?: number;
  silences?: readonly MethodSilence[];
  clock: Clock;
  /** Where the worker leader last recorded a source (by method) to be caught up to, and its limit. */
  lag?: (key: string) => Promise<RecordedLag>;
  /** Fiat pricing: each configured pair's rate, age and source (pricing/book.ts). */
  rates?: () => Promise<PairStatus[]>;
  /** The pairs one source alone prices for an enabled method (pricing/index.ts). */
  loneSources?: () => LoneSource[];
  /** Each notification channel and target: would it deliver (services/notify/check.ts)? */
  notifications?: () => Promise<DoctorLine[]>;
  /** The currencies the enabled methods are paid in, and the pair (if any) a price in a fiat still lacks. */
  pricing?: { units: readonly string[]; unconfigured: (unit: string, fiat: Fiat) => string | null };
}) {
  return {
    async run(): Promise<DoctorLine[]> {
      const lines: DoctorLine[] = [
        { ok: true, what: 'config', message: 'valid' },
        { ok: true, what: 'database', message: `${deps.dbFile} (migrated)` },
      ];
      if (!deps.livemode) lines.push({ ok: true, what: 'mode', message: 'sandbox (every method simulated)' });
      else if (deps.methods.length === 0)
        lines.push({ ok: false, what: 'methods', message: 'none enabled: a live daemon cannot take a payment (add a section under "methods" in the config; see config/payd.config.example.json)' });
      else lines.push({ ok: true, what: 'methods', message: deps.methods.join(', ') });
      const mismatches = await countRecent('duplicate_reference_mismatch');
      if (mismatches > 0) {
        lines.push({
          ok: false,
          what: 'payments',
          message: `${mismatches} observation${mismatches === 1 ? '' : 's'} in the last 7 days repeated a recorded reference with another amount, receiver or account (duplicate_reference_mismatch): one may be a payment that settled nothing; see \`payd payments list --rejected\``,
        });
      }
      const unconfirmed = await countRecent('unconfirmed_transfer');
      if (unconfirmed > 0) {
        lines.push({
          ok: false,
          what: 'payments',
          message: `${unconfirmed} transfer${unconfirmed === 1 ? '' : 's'} in the last 7 days listed by one endpoint only, never confirmed by a second (unconfirmed_transfer): a provider lagging far behind, or one serving transfers the chain does not have; nothing was settled on them; see \`payd payments list --rejected\` (the endpoint is in each one's detail)`,
        });
      }
      for (const source of await deps.sources()) {
        try {
          const r = await source.check(AbortSignal.timeout(deps.timeoutMs ?? 15_000));
          lines.push({ ok: r.ok, what: source.name, message: r.message });
          // Several endpoints: each its own line (health, head, quota, what went wrong), named without its key.
          for (const e of r.endpoints ?? []) lines.push({ ok: e.ok, what: `${source.method ?? source.name} ${e.what}`, message: e.message });
        } catch (err) {
          lines.push({ ok: false, what: source.name, message: (err as Error).message });
        }
        if (deps.lag && deps.livemode) lines.push(await lagLine(source.method ?? source.name, await deps.lag(source.method ?? source.name), deps.clock.now()));
      }
      for (const watch of deps.silences ?? []) lines.push(...(await silenceLines(watch, deps.clock.now())));
      const lone = new Map((deps.loneSources?.() ?? []).map((l) => [l.pair, l]));
      for (const p of (await deps.rates?.()) ?? []) {
        // A pair no enabled method can use (SOL/USD with no SOL method) is not a problem to report.
        if (deps.pricing && !pairUsed(p.pair, deps.pricing.units)) {
          lines.push({ ok: true, what: `rate ${p.pair}`, message: 'not used: no enabled method is paid in it' });
          continue;
        }
        const line = { what: `rate ${p.pair}`, ...describePair(p) };
        // One source alone prices it: say so, every time (the operator's choice, not a failure).
        const l = lone.get(p.pair);
        lines.push(l ? { ...line, message: `${line.message}; ${describeLoneSource(l)}` } : line);
      }
      if (deps.pricing) lines.push(pricingLine(deps.pricing));
      lines.push(...((await deps.notifications?.()) ?? []));
      return lines;
    },
  };

  /** Rejections for `reason` in the last 7 days: kinds a healthy daemon does not produce. */
  async function countRecent(reason: string): Promise<number> {
    const row = await deps.db
      .selectFrom('rejections')
      .select((eb) => eb.fn.countAll<number | string | bigint>().as('n'))
      .where('reason', '=', reason)
      .where('observed_at', '>=', deps.clock.now() - MISMATCH_WINDOW_MS)
      .executeTakeFirst();
    return Number(row?.n ?? 0);
  }
}

/** A pair an enabled method's price can go through: one of its currencies, or a fiat cross leg (USD/INR). */
function pairUsed(pair: string, units: readonly string[]): boolean {
  const sides = pair.split('/');
  return sides.some((c) => units.includes(c)) || sides.every(isFiat);
}

/**
 * Which fiat prices the enabled methods cannot take for want of a configured pair, and how to
 * add each: informational (pricing is optional), but it names what a create would refuse.
 */
function pricingLine(p: { units: readonly string[]; unconfigured: (unit: string, fiat: Fiat) => string | null }): DoctorLine {
  const missing = [...new Set(p.units.flatMap((unit) => FIAT_CODES.map((fiat) => p.unconfigured(unit, fiat)).filter((x): x is string => x !== null)))];
  if (missing.length === 0) return { ok: true, what: 'pricing', message: `prices in ${FIAT_CODES.join(', ')} can be paid with every enabled method` };
  return {
    ok: true,
    what: 'pricing',
    message: `no rate configured for ${missing.join(', ')}: creates priced so answer 400 PRICING_NOT_CONFIGURED. To offer them, ${configurePairHint(missing)}`,
  };
}

/** Each account's newest verified alert, and the silence alarm when it is on. */
async function silenceLines(silence: MethodSilence, now: number): Promise<DoctorLine[]> {
  const method = silence.method;
  const s = await silence.status();
  const lines: DoctorLine[] = s.accounts.map((a) => ({
    ok: true,
    what: `${method} ${a.bank.toUpperCase()} …${a.account}`,
    message: a.lastAlertAt === null ? 'no verified alert recorded yet' : `last verified alert ${describeAge(now - a.lastAlertAt)} ago (${isoUtc(a.lastAlertAt)})`,
  }));
  if (s.expectMs === undefined) return lines;
  const hours = s.expectMs / 3_600_000;
  if (s.silent) {
    const last = s.lastAlertAt === null ? 'No verified bank alert has ever arrived' : `No verified bank alert has arrived since ${isoUtc(s.lastAlertAt)}`;
    lines.push({
      ok: false,
      what: `${method} alerts`,
      message: `silent: ${last}, although a ${method} payment was requested ${describeAge(now - s.waitingSince!)} ago (expectAlertWithinHours ${hours}). Check that the bank's alerts still reach the mailbox (forwarding, filters, a mail provider that stopped fetching them).`,
    });
  } else lines.push({ ok: true, what: `${method} alerts`, message: `not silent (an alert is expected within ${hours} h of a ${method} payment request)` });
  return lines;
}

/** A source's position as the worker leader last recorded it; `reached` false: no cycle completed since it started. */
export interface RecordedLag {
  asOf: number | undefined;
  maxLagMs: number | undefined;
  reached?: boolean;
  error?: string;
}

/** A source's lag as the worker leader last recorded it; over the limit fails (the daemon is behind, or not running). */
function lagLine(key: string, l: RecordedLag, now: number): DoctorLine {
  const what = `${key} lag`;
  if (l.asOf === undefined) return { ok: true, what, message: 'not recorded yet (no payd serve has run this source)' };
  // Lag counts from the start until a first cycle completes: "14 s behind" would read as fine.
  if (l.reached === false && l.error !== undefined)
    return { ok: false, what, message: `never reached its upstream since payd serve started ${describeAge(Math.max(0, now - l.asOf))} ago (${l.error}): payments made since are not seen` };
  const lagMs = Math.max(0, now - l.asOf);
  const limit = l.maxLagMs === undefined ? '' : ` (limit ${l.maxLagMs / 1000} s)`;
  if (l.maxLagMs !== undefined && lagMs > l.maxLagMs)
    return { ok: false, what, message: `${describeAge(lagMs)} behind its upstream${limit}: payments made since are not seen yet. Is payd serve running, and its upstream answering?` };
  return { ok: true, what, message: `${describeAge(lagMs)} behind its upstream${limit}` };
}
