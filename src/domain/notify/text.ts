/**
 * What a notification says: short, plain words, amounts as the checkout prints them, no secret
 * (no client secret, token, address book or raw mail: ids, order ids and references only).
 */
import type { IntentStatus } from '../intent.ts';
import type { Method } from '../methods.ts';
import { heldWords } from '../held-words.ts';

/**
 * An amount as a person reads it ("₹1,499.00", "12.50 USDT (USDT_TRC20)"), with the checkout's
 * own formatter: built by the composition root from the method's descriptor. null: a method
 * this build does not know (a row written by another version).
 */
export type ShowAmount = (method: Method, minor: bigint) => string | null;

export const amountText = (show: ShowAmount, method: Method, minor: bigint): string => show(method, minor) ?? `${minor} (${method} minor units)`;

/** Telegram caps a message at 4096 characters; ours stay far below, this is the guard. */
export const clip = (s: string, max = 3500): string => (s.length <= max ? s : `${s.slice(0, max - 1)}…`);

export interface SettledFacts {
  method: Method;
  amountMinor: bigint;
  orderId: string;
  reference: string | null;
  /**
   * The payment link it was paid through, if any: the shopkeeper knows links by their titles. A
   * counter QR (the customer typed the amount) is a place ("at the counter"); a fixed-price link
   * is a thing sold ("for Blue saree").
   */
  link?: { title: string; counter: boolean } | null;
}

export const settledText = (show: ShowAmount, p: SettledFacts): string => {
  const ref = p.reference ? ` Ref ${p.reference}.` : '';
  const amount = amountText(show, p.method, p.amountMinor);
  if (!p.link) return `Paid: ${amount} for order ${p.orderId}.${ref}`;
  return `Paid ${amount} ${p.link.counter ? 'at the' : 'for'} ${p.link.title} (order ${p.orderId}).${ref}`;
};

export function digestText(show: ShowAmount, items: SettledFacts[], minutes: number): string {
  const totals = new Map<Method, bigint>();
  for (const i of items) totals.set(i.method, (totals.get(i.method) ?? 0n) + i.amountMinor);
  const sums = [...totals].map(([m, t]) => amountText(show, m, t)).join(', ');
  return `${items.length} payment${items.length === 1 ? '' : 's'} in the last ${ageText(minutes * 60_000)}: ${sums}.`;
}

export interface HeldFacts {
  method: Method;
  amountMinor: bigint;
  orderId: string | null;
  reference: string;
  reason: string | null;
}

export function heldText(show: ShowAmount, p: HeldFacts): string {
  const { why, todo } = heldWords(p.reason);
  return `Held, not credited: ${amountText(show, p.method, p.amountMinor)}${p.orderId ? ` for order ${p.orderId}` : ''}: ${why}; ${todo ?? 'accept it or mark it refunded'}. Ref ${p.reference}.`;
}

/** An intent an unmatched payment may have been meant for: what the operator names in `payd intents settle`. */
export interface UnmatchedCandidate {
  intentId: string;
  orderId: string;
  status: IntentStatus;
  /** The amount the intent asked, in base units. */
  payAmountMinor: bigint;
  createdAt: number;
  expiresAt: number;
}

/** How to settle an unmatched payment on the intent it was meant for. */
export const resolveCommand = (reference: string, intentId = '<intent_id>'): string => `payd intents settle ${intentId} --tx ${reference}`;

/** The candidates in words: "order A (asked ₹620.01, expired, intent int_…)". */
export const candidatesText = (show: ShowAmount, method: Method, candidates: readonly UnmatchedCandidate[]): string =>
  candidates.map((c) => `order ${c.orderId} (asked ${amountText(show, method, c.payAmountMinor)}, ${c.status}, intent ${c.intentId})`).join(' or ');

export function unmatchedText(show: ShowAmount, p: { method: Method; amountMinor: bigint; reference: string; reason: string | null; candidates?: readonly UnmatchedCandidate[] }): string {
  const candidates = p.candidates ?? [];
  const lead = `Payment matched no order: ${amountText(show, p.method, p.amountMinor)} (${(p.reason ?? 'no matching intent').replace(/_/g, ' ')}). Ref ${p.reference}.`;
  const near = candidates.length > 0 ? ` Maybe ${candidatesText(show, p.method, candidates)}.` : ' No open or expired order asked a nearby amount.';
  // With one candidate the command is ready to run; otherwise the operator picks the intent.
  const command = resolveCommand(p.reference, candidates.length === 1 ? candidates[0]!.intentId : undefined);
  return `${lead}${near} If it was meant for an order, settle it: ${command}. See payd payments list --unmatched.`;
}

/** The period's unmatched payments that were not told one by one (dust, or beyond the burst), as one message. */
export function unmatchedSummaryText(show: ShowAmount, s: { count: number; told: number; totals: ReadonlyMap<Method, bigint>; periodMs: number; burst: number }): string {
  const sums = [...s.totals].map(([m, t]) => amountText(show, m, t)).join(', ');
  return `${s.count}${s.told > 0 ? ' more' : ''} payment${s.count === 1 ? '' : 's'} matched no order in the last ${ageText(s.periodMs)} (below the amount worth a message, or beyond ${s.burst} in a burst): ${sums}. See payd payments list --unmatched.`;
}

export const BANK_NAMES: Record<string, string> = { hdfc: 'HDFC', icici: 'ICICI', sbi: 'SBI', axis: 'Axis', kotak: 'Kotak', yes: 'YES Bank', indusind: 'IndusInd', federal: 'Federal' };
export const bankName = (bank: string): string => BANK_NAMES[bank] ?? bank;

/** A condition that went bad, and the one message when it is good again. */
export type ConditionKind = 'source.down' | 'upi.silent' | 'webhook.failing' | 'alerts.unreadable';

export function alertText(kind: ConditionKind, subject: string, detail: string): string {
  switch (kind) {
    case 'source.down':
      return `Problem: payments by ${subject} are not being read (${detail}). Payments made now settle once it is back.`;
    case 'upi.silent':
      return `Problem: no verified bank alert for UPI in ${detail}, while customers were paying. Check the alert mailbox.`;
    case 'webhook.failing':
      return `Problem: the shop's server (${subject}) has not accepted payment messages for ${detail}. payd keeps retrying.`;
    case 'alerts.unreadable':
      return `${detail} ${bankName(subject)} alert${detail === '1' ? '' : 's'} in the last 24 h could not be read. Run payd doctor.`;
  }
}

export function recoveredText(kind: ConditionKind, subject: string, downForText: string): string {
  switch (kind) {
    case 'source.down':
      return `Recovered: payments by ${subject} are being read again (after ${downForText}).`;
    case 'upi.silent':
      return `Recovered: verified UPI bank alerts are arriving again (after ${downForText}).`;
    case 'webhook.failing':
      return `Recovered: the shop's server (${subject}) accepts payment messages again (after ${downForText}).`;
    case 'alerts.unreadable':
      return `All ${bankName(subject)} alerts of the last 24 h were read.`;
  }
}

/** "45 s", "12 min", "3 h 5 min", "2 d 4 h": how long, for people. */
export function ageText(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 120) return `${s} s`;
  const m = Math.floor(s / 60);
  if (m < 120) return `${m} min`;
  const h = Math.floor(m / 60);
  if (h < 48) return `${h} h ${m % 60} min`;
  return `${Math.floor(h / 24)} d ${h % 24} h`;
}
