import type { PaymentsTable, RejectionsTable } from '../../../db/schema.ts';
import { amountFromDb } from '../../../db/amounts.ts';
import type { Page } from '../../../services/console-views.ts';
import type { PaymentRow } from '../../../services/held-payments.ts';
import { heldWords } from '../../../domain/held-words.ts';
import { effectiveStatus } from '../../../domain/intent.ts';
import type { UnmatchedCandidate } from '../../../domain/notify/text.ts';
import { rejectionWords, unmatchedWords } from '../../../domain/reason-words.ts';
import type { ShopTime } from '../../../domain/shop-time.ts';
import { html, type Safe } from '../../checkout/escape.ts';
import { actionForm, badge, csrfField, facts, money, nextLink, payer } from '../layout.ts';

export type PaymentsTab = 'held' | 'unmatched' | 'rejected';

/** Why a payment is held, and what to do where its reason asks for something particular. */
const heldReason = (reason: string | null): string => {
  const { why, todo } = heldWords(reason);
  return todo === undefined ? why : `${why}; ${todo}`;
};


/**
 * The confirm step of "Assign and settle" when the payment is not what the intent is due: its
 * own amount and the difference, and what the merchant will be told. Confirming posts the same
 * form again with accept_difference.
 */
export function assignConfirmBody(csrf: string, p: { intentId: string; orderId: string; method: string; txRef: string; amountMinor: bigint; dueMinor: bigint; differenceMinor: bigint; note: string }): Safe {
  const short = p.differenceMinor < 0n;
  const diff = money(p.method, short ? -p.differenceMinor : p.differenceMinor);
  return html`<p>Payment <span class="mono">${p.txRef}</span> is <strong>${money(p.method, p.amountMinor)}</strong>: <strong>${diff} ${short ? 'less' : 'more'} than</strong> the ${money(p.method, p.dueMinor)} intent <span class="mono">${p.intentId}</span> (order ${p.orderId}) is due.</p>
<p>Settled with it, the order reads paid: the merchant is sent payment.success with <code>${short ? 'underpaid_by' : 'overpaid_by'}</code> ${diff} and <code>settled_by: operator</code>.${short ? ' Ship only once the rest is paid.' : ' Refund the difference.'}</p>
<form method="post" action="/console/payments/assign" class="assign">${csrfField(csrf)}
<input type="hidden" name="tx_ref" value="${p.txRef}">
<input type="hidden" name="intent_id" value="${p.intentId}">
<input type="hidden" name="note" value="${p.note}">
<input type="hidden" name="accept_difference" value="1">
<button type="submit">Settle ${diff} ${short ? 'short' : 'over'}</button> <a href="/console/payments?view=unmatched">Cancel</a></form>`;
}

/** Accept and Mark refunded for one held payment: one service call each (the ledger's decision). */
export function heldActions(csrf: string, p: Pick<PaymentRow, 'intentId' | 'transactionHash' | 'amount' | 'method'>, back?: 'held'): Safe {
  const fields = { tx: p.transactionHash, ...(back ? { back } : {}) };
  const amount = money(p.method, p.amount);
  return html`<div class="actions">${actionForm(csrf, `/console/intents/${p.intentId}/payments/accept`, 'Accept', {
    fields,
    confirm: `Accept ${amount} for this intent? It settles and the merchant is sent payment.success.`,
  })}${actionForm(csrf, `/console/intents/${p.intentId}/payments/refunded`, 'Mark refunded', {
    fields,
    confirm: `Record that ${amount} was returned to the payer? payd moves no money; the merchant is sent payment.refunded.`,
    danger: true,
  })}</div>`;
}

/** One held payment as a row: paid, for which order and what it asked, why held, when; the order linked on the Held tab. */
export function heldRow(csrf: string, p: PaymentRow, time: ShopTime, back?: 'held'): Safe {
  const order = back ? html`<a href="/console/intents/${p.intentId}">${p.orderId}</a>` : p.orderId;
  return html`<li class="row"><span class="main"><span class="title">Order ${order}</span><span class="amount">paid ${money(p.method, p.amount)}</span></span>
<span class="sub"><span>asked ${money(p.method, p.payAmount)}</span> ${badge('held')} <span class="why">${heldReason(p.reason)}</span></span>
<span class="sub"><span>${p.method}</span> <span>received ${time.format(p.receivedAt)}</span> <span class="mono">${p.transactionHash}</span></span>
${heldActions(csrf, p, back)}</li>`;
}

type RejectionRow = Pick<RejectionsTable, 'ref' | 'source' | 'method' | 'reason' | 'detail_json' | 'observed_at'> & { raw_bytes: number | null };

/** An unmatched payment with the orders it may be for (the one the ledger tied it to first). */
export interface UnmatchedItem {
  payment: PaymentsTable;
  candidates: UnmatchedCandidate[];
}

/** What the operator typed into an assign form, and what was wrong with it: shown again as typed. */
export interface AssignTyped {
  order: string;
  intentId: string;
  note: string;
  error: string;
}


/** The assign form of one unmatched payment: a suggested order to pick, or an order id (or intent id) typed. */
function assignForm(csrf: string, item: UnmatchedItem, time: ShopTime, now: number, typed?: AssignTyped): Safe {
  const p = item.payment;
  const picked = typed?.intentId ?? '';
  const choices = item.candidates.map(
    (c) => html`<label class="check"><input type="radio" name="intent_id" value="${c.intentId}"${picked === c.intentId ? html` checked` : ''}> <span>Order <strong>${c.orderId}</strong> · asks ${money(p.method, c.payAmountMinor)} · ${effectiveStatus(c, now)} · made ${time.format(c.createdAt)}</span></label>`,
  );
  return html`<form method="post" action="/console/payments/assign" class="assign" data-confirm="Settle the order with this payment of ${money(p.method, amountFromDb(p.amount_minor))}? If the order asks another amount, the next page shows the difference first.">${csrfField(csrf)}
<input type="hidden" name="tx_ref" value="${p.tx_ref}">
${typed ? html`<p class="error" role="alert">${typed.error}</p>` : ''}
${choices.length ? html`<fieldset><legend>Orders near this amount</legend>${choices}</fieldset>` : html`<p class="hint">No open or expired order of ${p.method} asks near this amount.</p>`}
<label>Or type its order id, or the amount it asks <input name="order" value="${typed?.order ?? ''}" spellcheck="false" autocomplete="off"></label>
<label>Note <input name="note" maxlength="200" value="${typed?.note ?? ''}"></label>
<button type="submit">Assign and settle</button></form>`;
}

/** One unmatched payment: paid, why nothing settled, the orders it may be for, and the assign form. */
function unmatchedRow(csrf: string, item: UnmatchedItem, time: ShopTime, now: number, typed?: AssignTyped): Safe {
  const p = item.payment;
  const who = payer(p.evidence_json);
  const near = item.candidates.map((c) => html`<span>Order ${c.orderId} asks ${money(p.method, c.payAmountMinor)}</span>`);
  return html`<li class="row"><span class="main"><span class="title">${unmatchedWords(p.reason)}</span><span class="amount">paid ${money(p.method, amountFromDb(p.amount_minor))}</span></span>
<span class="sub"><span>${p.method}</span> <span>received ${time.format(p.observed_at)}</span> <span class="mono">${p.tx_ref}</span></span>
${who ? html`<span class="sub">Paid by <span class="payer">${who}</span></span>` : ''}
${near.length ? html`<span class="sub candidates">${near}</span>` : ''}
<details${typed ? html` open` : ''}><summary>Assign to an order</summary>
${assignForm(csrf, item, time, now, typed)}</details></li>`;
}

const tabs = (current: PaymentsTab) =>
  html`<nav class="tabs" aria-label="Payment lists">${(
    [
      ['unmatched', 'Unmatched'],
      ['held', 'Held'],
      ['rejected', 'Rejected'],
    ] as const
  ).map(([k, label]) => html`<a href="/console/payments?view=${k}"${current === k ? html` aria-current="page"` : ''}>${label}</a>`)}</nav>`;

export function paymentsBody(
  options: ({ tab: 'unmatched'; unmatched: Page<UnmatchedItem> } | { tab: 'held'; held: { items: PaymentRow[]; nextCursor: string | null } } | { tab: 'rejected'; rejected: Page<RejectionRow> }) & { csrf: string; time: ShopTime; now: number },
): Safe {
  const { time } = options;
  if (options.tab === 'held') {
    const rows = options.held.items.map((p) => heldRow(options.csrf, p, time, 'held'));
    return html`${tabs('held')}<p class="hint">Payments for an order that payd would not settle on its own (late, short, over, to a canceled or already paid order). Accept settles the order with it; Mark refunded records that the shop returned the money (payd moves none).</p>
${rows.length ? html`<ul class="rows">${rows}</ul>` : html`<p class="empty">No payment waits for a decision.</p>`}
${nextLink('/console/payments', { view: 'held' }, options.held.nextCursor)}`;
  }
  if (options.tab === 'rejected') {
    const rows = options.rejected.items.map(
      (r) => html`<li><a class="row" href="/console/payments/rejected?ref=${encodeURIComponent(r.ref)}"><span class="main"><span class="title">${rejectionWords(r.reason)}</span><span>${r.method}</span></span>
<span class="sub"><span>${time.format(r.observed_at)}</span> <span>${r.source}</span> <span class="mono">${r.ref}</span>${r.raw_bytes ? html` <span>raw message ${r.raw_bytes} bytes</span>` : ''}</span></a></li>`,
    );
    return html`${tabs('rejected')}<p class="hint">Observations refused before they became payments (forged or unreadable mail, amounts no order can ask for…). Nothing was credited.</p>
${rows.length ? html`<ul class="rows">${rows}</ul>` : html`<p class="empty">Nothing rejected.</p>`}
${nextLink('/console/payments', { view: 'rejected' }, options.rejected.next)}`;
  }
  const rows = options.unmatched.items.map((item) => unmatchedRow(options.csrf, item, time, options.now));
  return html`${tabs('unmatched')}<p class="hint">Payments that settled no order (no order for the amount, paid late or short…). Assigning one settles the order you pick, as <code>payd intents settle</code> does.</p>
${rows.length ? html`<ul class="rows">${rows}</ul>` : html`<p class="empty">No unmatched payment.</p>`}
${nextLink('/console/payments', { view: 'unmatched' }, options.unmatched.next)}`;
}

/** The assign form again after a mistake: what was typed, what was wrong, the suggestions. */
export function assignAgainBody(csrf: string, item: UnmatchedItem, time: ShopTime, now: number, typed: AssignTyped): Safe {
  return html`<ul class="rows">${unmatchedRow(csrf, item, time, now, typed)}</ul>
<p><a href="/console/payments?view=unmatched">Back to unmatched payments</a></p>`;
}

/** How much of a stored raw message the page shows. */
const RAW_SHOWN = 200 * 1024;

/** The stored raw message as inert text: escaped into <pre>, never parsed or rendered as HTML. */
export function rejectionBody(row: RejectionsTable, time: ShopTime): Safe {
  const raw = row.raw ? Buffer.from(row.raw) : null;
  const text = raw ? raw.subarray(0, RAW_SHOWN).toString('utf8') : null;
  return html`<section class="card">${facts([
    ['Reason', rejectionWords(row.reason)],
    ['Method', row.method],
    ['Source', row.source],
    ['Reference', html`<span class="mono">${row.ref}</span>`],
    ['Seen', time.format(row.observed_at)],
  ])}</section>
${row.detail_json ? html`<h2>Details</h2><pre class="raw">${row.detail_json}</pre>` : ''}
<h2>Raw message</h2>
${text === null ? html`<p class="empty">Not stored.</p>` : html`<pre class="raw" id="raw-message">${text}</pre>${raw!.length > RAW_SHOWN ? html`<p class="hint">First ${RAW_SHOWN} of ${raw!.length} bytes.</p>` : ''}`}
<p><a href="/console/payments?view=rejected">Back to rejected</a></p>`;
}
