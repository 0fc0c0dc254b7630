import type { PaymentsTable, RejectionsTable } from '../../../db/schema.ts';
import { amountFromDb } from '../../../db/amounts.ts';
import type { Page } from '../../../services/console-views.ts';
import type { PaymentRow } from '../../../services/held-payments.ts';
import { heldWords } from '../../../domain/held-words.ts';
import { html, type Safe } from '../../checkout/escape.ts';
import { actionForm, badge, csrfField, facts, money, nextLink, payer, when } from '../layout.ts';

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

/** One held payment as a row: amount, reason, when, its transaction; the intent linked on the Held tab. */
export function heldRow(csrf: string, p: PaymentRow, back?: 'held'): Safe {
  return html`<li class="row"><span class="main"><span class="title mono">${p.transactionHash}</span><span class="amount">${money(p.method, p.amount)}</span></span>
<span class="sub">${badge(p.reason ?? 'held')} <span>${heldReason(p.reason)}</span> <span>${p.method}</span> <span>received ${when(p.receivedAt)}</span></span>
${back ? html`<span class="sub">Intent <a class="mono" href="/console/intents/${p.intentId}">${p.intentId}</a></span>` : ''}
${heldActions(csrf, p, back)}</li>`;
}

type RejectionRow = Pick<RejectionsTable, 'ref' | 'source' | 'method' | 'reason' | 'detail_json' | 'observed_at'> & { raw_bytes: number | null };

const tabs = (current: PaymentsTab) =>
  html`<nav class="tabs" aria-label="Payment lists">${(
    [
      ['unmatched', 'Unmatched'],
      ['held', 'Held'],
      ['rejected', 'Rejected'],
    ] as const
  ).map(([k, label]) => html`<a href="/console/payments?view=${k}"${current === k ? html` aria-current="page"` : ''}>${label}</a>`)}</nav>`;

export function paymentsBody(
  options: { tab: 'unmatched'; unmatched: Page<PaymentsTable>; csrf: string } | { tab: 'held'; held: { items: PaymentRow[]; nextCursor: string | null }; csrf: string } | { tab: 'rejected'; rejected: Page<RejectionRow>; csrf: string },
): Safe {
  if (options.tab === 'held') {
    const rows = options.held.items.map((p) => heldRow(options.csrf, p, 'held'));
    return html`${tabs('held')}<p class="hint">Payments attributed to an intent that payd would not settle on its own (late, short, over, to a canceled or already settled intent). Accept settles the intent with it; Mark refunded records that the shop returned the money (payd moves none).</p>
${rows.length ? html`<ul class="rows">${rows}</ul>` : html`<p class="empty">No payment waits for a decision.</p>`}
${nextLink('/console/payments', { view: 'held' }, options.held.nextCursor)}`;
  }
  if (options.tab === 'rejected') {
    const rows = options.rejected.items.map(
      (r) => html`<li><a class="row" href="/console/payments/rejected?ref=${encodeURIComponent(r.ref)}"><span class="main"><span class="title">${r.reason}</span><span>${r.method}</span></span>
<span class="sub"><span class="mono">${r.ref}</span> <span>${r.source}</span> <span>${when(r.observed_at)}</span>${r.raw_bytes ? html` <span>raw message ${r.raw_bytes} bytes</span>` : ''}</span></a></li>`,
    );
    return html`${tabs('rejected')}<p class="hint">Observations refused before they became payments (forged or unreadable mail, amounts no intent can ask for…). Nothing was credited.</p>
${rows.length ? html`<ul class="rows">${rows}</ul>` : html`<p class="empty">Nothing rejected.</p>`}
${nextLink('/console/payments', { view: 'rejected' }, options.rejected.next)}`;
  }
  const rows = options.unmatched.items.map(
    (p) => html`<li class="row"><span class="main"><span class="title mono">${p.tx_ref}</span><span class="amount">${money(p.method, amountFromDb(p.amount_minor))}</span></span>
<span class="sub">${badge(p.reason ?? 'unmatched')} <span>${p.method}</span> <span>${p.source}</span> <span>${when(p.observed_at)}</span></span>
${payer(p.evidence_json) ? html`<span class="sub">Paid by <span class="payer">${payer(p.evidence_json)}</span></span>` : ''}
<details><summary>Assign to an intent</summary>
<form method="post" action="/console/payments/assign" class="assign" data-confirm="Settle the intent with this payment of ${money(p.method, BigInt(p.amount_minor))}? If the intent asks another amount, the next page shows the difference first.">${csrfField(options.csrf)}
<input type="hidden" name="tx_ref" value="${p.tx_ref}">
<label>Intent id <input name="intent_id" required spellcheck="false" autocomplete="off"></label>
<label>Note <input name="note" maxlength="200"></label>
<button type="submit">Assign and settle</button></form></details></li>`,
  );
  return html`${tabs('unmatched')}<p class="hint">Payments that settled nothing (wrong amount, late, under-paid…). Assigning one settles the intent you name, as <code>payd intents settle</code> does.</p>
${rows.length ? html`<ul class="rows">${rows}</ul>` : html`<p class="empty">No unmatched payment.</p>`}
${nextLink('/console/payments', { view: 'unmatched' }, options.unmatched.next)}`;
}

/** How much of a stored raw message the page shows. */
const RAW_SHOWN = 200 * 1024;

/** The stored raw message as inert text: escaped into <pre>, never parsed or rendered as HTML. */
export function rejectionBody(row: RejectionsTable): Safe {
  const raw = row.raw ? Buffer.from(row.raw) : null;
  const text = raw ? raw.subarray(0, RAW_SHOWN).toString('utf8') : null;
  return html`<section class="card">${facts([
    ['Reason', badge(row.reason)],
    ['Method', row.method],
    ['Source', row.source],
    ['Reference', html`<span class="mono">${row.ref}</span>`],
    ['Seen', when(row.observed_at)],
  ])}</section>
${row.detail_json ? html`<h2>Details</h2><pre class="raw">${row.detail_json}</pre>` : ''}
<h2>Raw message</h2>
${text === null ? html`<p class="empty">Not stored.</p>` : html`<pre class="raw" id="raw-message">${text}</pre>${raw!.length > RAW_SHOWN ? html`<p class="hint">First ${RAW_SHOWN} of ${raw!.length} bytes.</p>` : ''}`}
<p><a href="/console/payments?view=rejected">Back to rejected</a></p>`;
}
