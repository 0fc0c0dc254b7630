/**
 * Turns what happened into queued notifications, run by the worker leader. Each input has its own
 * cursor in `checkpoints`, written in the transaction that queues its messages, and every row
 * has a dedup key: a kill -9 at any point neither loses a message nor queues one twice.
 * - events (commit-ordered `seq`): payment.success → payment.settled (or a digest), payment.held
 * - unmatched payments (observed_at, re-read with a minute's overlap; the ids read in it are kept):
 *   one message each, except dust (below `unmatched.below`) and those beyond `unmatched.burst` in a
 *   period, which are counted into one summary at the period's end: a flood is one message
 * - conditions (sources, UPI silence, webhook endpoints, unreadable alerts): coalesced episodes
 */
import { sql } from 'kysely';
import { amountFromDb } from '../../db/amounts.ts';
import type { Db } from '../../db/open.ts';
import { stepConditions, type Observation, type OpenConditions, type Transition } from '../../domain/notify/conditions.ts';
import { unmatchedCandidates } from '../unmatched-candidates.ts';
import { ageText, alertText, clip, digestText, heldText, recoveredText, settledText, unmatchedSummaryText, unmatchedText, type SettledFacts, type ShowAmount } from '../../domain/notify/text.ts';
import type { Clock, Logger, Random } from '../../domain/ports.ts';
import { heldButtons } from './buttons.ts';
import type { Channel, NewNotification, NotificationQueue } from './queue.ts';

export interface ChannelPlan {
  channel: Channel;
  /** Telegram: one row per chat id; e-mail: one row for all of `to` (comma-joined). */
  targets: string[];
  kinds: ReadonlySet<string>;
  digestMinutes?: number;
  /** Telegram with the bot on and held payments wired: a payment.held message carries Accept / Refunded. */
  heldButtons?: boolean;
}

const EVENTS_KEY = 'notify:events';
const UNMATCHED_KEY = 'notify:unmatched';
const CONDITIONS_KEY = 'notify:conditions';
const digestKey = (c: Channel) => `notify:digest:${c}`;
/** Unmatched payments are re-read this far back (concurrent writers commit out of observed_at order), ms. */
const UNMATCHED_OVERLAP_MS = 60_000;
const PAGE = 200;

/** How unmatched payments are told (notifications.unmatched, amounts in minor units per method). */
export interface UnmatchedPlan {
  below: ReadonlyMap<string, bigint>;
  burst: number;
  periodMs: number;
}

/** The unmatched feed's position and its open period (what it told one by one, what it counted). */
interface UnmatchedState {
  at: number;
  /** Ids already read that a re-read of the overlap finds again. */
  seen?: Array<{ id: string; at: number }>;
  period?: { since: number; told: number; count: number; totals: Record<string, string> };
}

async function maxSeq(db: Db): Promise<number> {
  const row = await db.selectFrom('events').select(sql<number | null>`max(seq)`.as('m')).executeTakeFirst();
  return Number(row?.m ?? 0);
}

/** payment.success events after `seq`, with the intent's order and the payment's amount. */
async function settledAfter(db: Db, seq: number, upTo: number, limit: number) {
  const rows = await db
    .selectFrom('events')
    .innerJoin('intents', 'intents.id', 'events.intent_id')
    .leftJoin('payments', 'payments.id', 'intents.payment_id')
    .leftJoin('payment_links', 'payment_links.id', 'intents.link_id')
    .select(['events.seq', 'intents.method', 'intents.order_id', 'intents.pay_amount_minor', 'intents.transaction_hash', 'payments.amount_minor', 'payment_links.title', 'payment_links.price_amount'])
    .where('events.type', '=', 'payment.success')
    .where('events.seq', '>', seq)
    .where('events.seq', '<=', upTo)
    .orderBy('events.seq')
    .limit(limit)
    .execute();
  return rows
    .map((r) => ({ seq: Number(r.seq), facts: { method: r.method, amountMinor: amountFromDb(r.amount_minor ?? r.pay_amount_minor), orderId: r.order_id, reference: r.transaction_hash, link: r.title === null ? null : { title: r.title, counter: r.price_amount === null } } satisfies SettledFacts }));
}

export function createNotificationFeed(deps: {
  db: Db;
  clock: Clock;
  random: Random;
  log: Logger;
  show: ShowAmount;
  queue: NotificationQueue;
  channels: ChannelPlan[];
  observe: (open: OpenConditions) => Promise<Observation[]>;
  unmatched: UnmatchedPlan;
}) {
  const { db, queue } = deps;
  const rowsFor = (kind: string, dedupKey: string, text: string, skip?: (c: ChannelPlan) => boolean): NewNotification[] =>
    deps.channels.filter((c) => c.kinds.has(kind) && !skip?.(c)).flatMap((c) => c.targets.map((target) => ({ channel: c.channel, target, dedupKey, kind, text: clip(text) })));

  /** Each Telegram chat's row gets its own Accept / Refunded tokens. */
  const buttonChats = new Set(deps.channels.filter((c) => c.heldButtons).map((c) => c.channel));
  const withButtons = (rows: NewNotification[], intentId: string, transactionHash: string): NewNotification[] =>
    rows.map((r) => {
      if (!buttonChats.has(r.channel)) return r;
      const { keyboard, grants } = heldButtons(deps.random, deps.clock.now(), r.target, intentId, transactionHash);
      return { ...r, buttons: keyboard, grants };
    });

  /** Payment events in written order; the first run starts at the newest (an upgrade does not replay history). */
  async function events(): Promise<void> {
    const at = await queue.loadState<{ seq: number }>(EVENTS_KEY);
    if (!at) {
      await queue.commit([], [{ key: EVENTS_KEY, value: { seq: await maxSeq(db) } }]);
      return;
    }
    // Read first: seq is handed out in commit order (the counter row is locked to commit), so every
    // event up to it is visible to the query below, and the cursor may pass the other events' seqs too.
    const upTo = await maxSeq(db);
    if (upTo <= at.seq) return;
    const list = await db.selectFrom('events').select(['seq', 'type', 'intent_id', 'body']).where('seq', '>', at.seq).where('seq', '<=', upTo).where('type', 'in', ['payment.success', 'payment.held']).orderBy('seq').limit(PAGE).execute();
    const last = list.length === PAGE ? Number(list[list.length - 1]!.seq) : upTo;
    const rows: NewNotification[] = [];
    const settled = new Map((await settledAfter(db, at.seq, last, PAGE)).map((s) => [s.seq, s.facts]));
    for (const e of list) {
      const seq = Number(e.seq);
      if (e.type === 'payment.success') {
        const facts = settled.get(seq);
        if (facts) rows.push(...rowsFor('payment.settled', `settled:${e.intent_id}`, settledText(deps.show, facts), (c) => c.digestMinutes !== undefined));
      } else {
        const held = await heldFacts(e.intent_id, e.body);
        if (held) rows.push(...withButtons(rowsFor('payment.held', `held:${e.intent_id}:${held.reference}`, heldText(deps.show, held)), e.intent_id!, held.reference));
      }
    }
    await queue.commit(rows, [{ key: EVENTS_KEY, value: { seq: last } }]);
  }

  async function heldFacts(intentId: string | null, body: string) {
    let data: { transaction_hash?: unknown; reason?: unknown } = {};
    try {
      data = (JSON.parse(body) as { data?: typeof data }).data ?? {};
    } catch {
      return null;
    }
    if (!intentId || typeof data.transaction_hash !== 'string') return null;
    const row = await db
      .selectFrom('payments')
      .innerJoin('intents', 'intents.id', 'payments.intent_id')
      .select(['payments.method', 'payments.amount_minor', 'payments.reason', 'intents.order_id'])
      .where('payments.intent_id', '=', intentId)
      // A TRON transaction's rows are keyed `txid:…`; the event names the transaction.
      .where((eb) => eb.or([eb('payments.tx_ref', '=', data.transaction_hash as string), eb('payments.tx_ref', 'like', `${data.transaction_hash as string}:%`)]))
      .executeTakeFirst();
    if (!row) return null;
    return { method: row.method, amountMinor: amountFromDb(row.amount_minor), orderId: row.order_id, reference: data.transaction_hash, reason: typeof data.reason === 'string' ? data.reason : row.reason };
  }

  async function unmatched(): Promise<void> {
    const now = deps.clock.now();
    const at = await queue.loadState<UnmatchedState>(UNMATCHED_KEY);
    if (!at) {
      await queue.commit([], [{ key: UNMATCHED_KEY, value: { at: now } }]);
      return;
    }
    const seen = at.seen ?? [];
    let query = db.selectFrom('payments').select(['id', 'method', 'receiver', 'amount_minor', 'tx_ref', 'reason', 'observed_at']).where('status', '=', 'unmatched').where('observed_at', '>', at.at - UNMATCHED_OVERLAP_MS);
    if (seen.length > 0) query = query.where('id', 'not in', seen.map((s) => s.id));
    const fresh = await query.orderBy('observed_at').orderBy('id').limit(PAGE).execute();
    const rows: NewNotification[] = [];
    let period = at.period;
    // The period ends: what it counted is one message.
    if (period && now - period.since >= deps.unmatched.periodMs) {
      if (period.count > 0) {
        const totals = new Map(Object.entries(period.totals).map(([m, t]) => [m, BigInt(t)]));
        rows.push(...rowsFor('payment.unmatched', `unmatched-summary:${period.since}`, unmatchedSummaryText(deps.show, { count: period.count, told: period.told, totals, periodMs: deps.unmatched.periodMs, burst: deps.unmatched.burst })));
      }
      period = undefined;
    }
    for (const p of fresh) {
      // A period starts with its first unmatched payment.
      period ??= { since: now, told: 0, count: 0, totals: {} };
      const amountMinor = amountFromDb(p.amount_minor);
      const dust = amountMinor < (deps.unmatched.below.get(p.method) ?? 0n);
      if (!dust && period.told < deps.unmatched.burst) {
        period.told++;
        const candidates = await unmatchedCandidates(db, { method: p.method, receiver: p.receiver, amountMinor, observedAt: Number(p.observed_at) });
        rows.push(...rowsFor('payment.unmatched', `unmatched:${p.id}`, unmatchedText(deps.show, { method: p.method, amountMinor, reference: p.tx_ref, reason: p.reason, candidates })));
      } else {
        period.count++;
        period.totals[p.method] = String(BigInt(period.totals[p.method] ?? '0') + amountMinor);
      }
    }
    if (fresh.length === 0 && period === at.period) return;
    const newest = Math.max(at.at, ...fresh.map((p) => Number(p.observed_at)));
    // Only what the next read's overlap can find again needs remembering.
    const nextSeen = [...seen, ...fresh.map((p) => ({ id: p.id, at: Number(p.observed_at) }))].filter((s) => s.at > newest - UNMATCHED_OVERLAP_MS);
    await queue.commit(rows, [{ key: UNMATCHED_KEY, value: { at: newest, seen: nextSeen, ...(period ? { period } : {}) } satisfies UnmatchedState }]);
  }

  async function digests(): Promise<void> {
    const now = deps.clock.now();
    for (const c of deps.channels) {
      if (c.digestMinutes === undefined || !c.kinds.has('payment.settled')) continue;
      const key = digestKey(c.channel);
      const st = await queue.loadState<{ seq: number; at: number }>(key);
      if (!st) {
        await queue.commit([], [{ key, value: { seq: await maxSeq(db), at: now } }]);
        continue;
      }
      if (now - st.at < c.digestMinutes * 60_000) continue;
      const upTo = await maxSeq(db);
      const items = await settledAfter(db, st.seq, upTo, 10_000);
      const rows: NewNotification[] = items.length
        ? c.targets.map((target) => ({ channel: c.channel, target, dedupKey: `digest:${st.seq}-${upTo}`, kind: 'payment.settled', text: digestText(deps.show, items.map((i) => i.facts), c.digestMinutes!) }))
        : [];
      await queue.commit(rows, [{ key, value: { seq: upTo, at: now } }]);
    }
  }

  async function conditions(): Promise<void> {
    const now = deps.clock.now();
    const open = (await queue.loadState<OpenConditions>(CONDITIONS_KEY)) ?? {};
    const step = stepConditions(open, await deps.observe(open), now);
    const rows = step.transitions.flatMap((t: Transition) => {
      // Unreadable alerts age out of their 24 h window: that is no news worth a message.
      if (t.state === 'recovered' && t.kind === 'alerts.unreadable') return [];
      const text = t.state === 'problem' ? alertText(t.kind, t.subject, t.detail) : recoveredText(t.kind, t.subject, ageText(now - t.since));
      return rowsFor(t.kind, `${t.key}:${t.state}:${t.since}`, text);
    });
    if (rows.length === 0 && JSON.stringify(step.open) === JSON.stringify(open)) return;
    await queue.commit(rows, [{ key: CONDITIONS_KEY, value: step.open }]);
    for (const t of step.transitions) deps.log.info(`notification: ${t.kind} ${t.state}`, { subject: t.subject });
  }

  return {
    async tick(): Promise<void> {
      await events();
      await unmatched();
      await digests();
      await conditions();
    },
  };
}

export type NotificationFeed = ReturnType<typeof createNotificationFeed>;
