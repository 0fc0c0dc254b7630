import type { IntentsTable, IntentStatus } from '../../../db/schema.ts';
import { amountFromDb } from '../../../db/amounts.ts';
import { effectiveStatus, type Intent } from '../../../domain/intent.ts';
import type { Method } from '../../../domain/methods.ts';
import { builtinMethods } from '../../../methods/registry.ts';
import { parseDecimal } from '../../../domain/money.ts';
import type { Page } from '../../../services/console-views.ts';
import type { Merchant } from '../../../services/merchants/index.ts';
import type { EventService } from '../../../services/events/operator.ts';
import type { paymentView } from '../../../services/payments.ts';
import type { PaymentRow as HeldRow } from '../../../services/held-payments.ts';
import { heldRow } from './payments.ts';
import { heldWords } from '../../../domain/held-words.ts';
import { html, type Safe } from '../../checkout/escape.ts';
import { actionForm, badge, facts, money, nextLink, payer } from '../layout.ts';
import type { ShopTime } from '../../../domain/shop-time.ts';

const status = (r: Pick<IntentsTable, 'status' | 'expires_at'>, now: number) => effectiveStatus({ status: r.status, expiresAt: r.expires_at }, now);

export function intentsBody(options: { result: Page<IntentsTable>; params: Record<string, string | undefined>; now: number; time: ShopTime; statuses: IntentStatus[]; methods: readonly Method[] }): Safe {
  const p = options.params;
  const option = (value: string, label: string, current: string | undefined) => html`<option value="${value}"${current === value ? html` selected` : ''}>${label}</option>`;
  const form = html`<form method="get" action="/console/intents" class="filters" role="search">
<label class="wide">Intent id or order id <input type="search" name="q" value="${p.q ?? ''}" autocomplete="off" spellcheck="false"></label>
<label>Status <select name="status">${option('', 'Any', p.status)}${options.statuses.map((s) => option(s, s, p.status))}</select></label>
<label>Method <select name="method">${option('', 'Any', p.method)}${options.methods.map((m) => option(m, m, p.method))}</select></label>
<label>From <input type="date" name="from" value="${p.from ?? ''}"></label>
<label>To <input type="date" name="to" value="${p.to ?? ''}"></label>
<button type="submit">Search</button>
</form>`;
  const rows = options.result.items.map(
    (r) => html`<li><a href="/console/intents/${r.id}" class="row">
<span class="main"><span class="title">${r.order_id}</span><span class="amount">${money(r.method, amountFromDb(r.pay_amount_minor))}</span></span>
<span class="sub">${badge(status(r, options.now))} <span>${r.method}</span> <span>${options.time.format(r.created_at)}</span></span>
</a></li>`,
  );
  return html`${form}
${rows.length ? html`<ul class="rows">${rows}</ul>` : html`<p class="empty">No intent matches.</p>`}
${nextLink('/console/intents', p, options.result.next)}`;
}

type PaymentRow = ReturnType<typeof paymentView>;
type EventRow = Awaited<ReturnType<EventService['forIntent']>>[number];

const paid = (p: PaymentRow) => {
  const decimals = builtinMethods.get(p.method)?.rules.decimals;
  const parsed = decimals === undefined ? null : parseDecimal(p.amount.text, decimals);
  return parsed?.ok ? money(p.method, parsed.minor) : p.amount.text;
};

export function intentBody(options: { intent: Intent; merchant: Merchant; payments: PaymentRow[]; held: HeldRow[]; events: EventRow[]; now: number; time: ShopTime; csrf: string }): Safe {
  const i = options.intent;
  const st = effectiveStatus(i, options.now);
  const actions: Safe[] = [];
  if (st === 'pending') actions.push(actionForm(options.csrf, `/console/intents/${i.id}/cancel`, 'Cancel intent', { confirm: `Cancel order ${i.orderId}? The merchant is told it is canceled.`, danger: true }));
  const payments = options.payments.map(
    (p) => html`<li class="row"><span class="main"><span class="title mono">${p.tx_ref}</span><span class="amount">${paid(p)}</span></span>
<span class="sub">${badge(p.status)}${p.reason ? html` <span>${heldWords(p.reason).why}</span>` : ''} <span>${p.source}</span> <span>${options.time.format(Date.parse(p.observed_at))}</span></span>
${payer(p.evidence) ? html`<span class="sub">Paid by <span class="payer">${payer(p.evidence)}</span></span>` : ''}</li>`,
  );
  const events = options.events.map(
    (e) => html`<li class="row"><span class="main"><span class="title">${e.type}</span>${badge(e.status)}</span>
<span class="sub"><span class="mono">${e.event_id}</span> <span>${e.attempts} attempt${e.attempts === 1 ? '' : 's'}</span></span>
${e.attempts_log.length
  ? html`<ol class="attempts">${e.attempts_log.map((a) => html`<li>#${a.attempt} ${a.at ? options.time.format(Date.parse(a.at)) : ''}: ${a.status_code ?? 'no answer'} in ${a.duration_ms} ms${a.error ? html` — <span class="err">${a.error}</span>` : ''}</li>`)}</ol>`
  : ''}
${e.type === 'webhook.test' ? '' : actionForm(options.csrf, `/console/events/${e.event_id}/replay`, 'Replay webhook', { confirm: 'Deliver this webhook again (same webhook-id)?' })}</li>`,
  );
  return html`<section class="card">
${facts([
  ['Status', badge(st)],
  ['Merchant', options.merchant.name],
  ['Order id', i.orderId],
  // An open intent before its customer's choice has no method or amount yet.
  ['Amount asked', i.method === null ? '—' : money(i.method, i.amountMinor)],
  ['To pay', i.method === null ? '—' : money(i.method, i.payAmountMinor)],
  ['Method', i.method ?? `not chosen yet (${i.open?.methods.join(', ') ?? ''})`],
  ['Receiver', html`<span class="mono">${i.receiver}</span>`],
  ['Created', options.time.format(i.createdAt)],
  ['Expires', options.time.format(i.expiresAt)],
  ['Settled', i.verifiedAt ? options.time.format(i.verifiedAt) : null],
  ['Transaction', i.transactionHash ? html`<span class="mono">${i.transactionHash}</span>` : null],
  ['Intent id', html`<span class="mono">${i.id}</span>`],
])}
${actions.length ? html`<div class="actions">${actions}</div>` : ''}
</section>
${options.held.length ? html`<h2>Held: waiting for a decision</h2><ul class="rows">${options.held.map((p) => heldRow(options.csrf, p, options.time))}</ul>` : ''}
<h2>Payments</h2>
${payments.length ? html`<ul class="rows">${payments}</ul>` : html`<p class="empty">No payment recorded for this intent.</p>`}
<h2>Webhooks</h2>
${events.length ? html`<ul class="rows">${events}</ul>` : html`<p class="empty">No webhook event.</p>`}`;
}

intentBody.missing = (id: string): Safe => html`<p class="error" role="alert">No intent ${id}.</p><p><a href="/console/intents">Search intents</a></p>`;
