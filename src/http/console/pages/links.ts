import type { IntentsTable } from '../../../db/schema.ts';
import { amountFromDb } from '../../../db/amounts.ts';
import { effectiveStatus } from '../../../domain/intent.ts';
import { FIAT_CODES } from '../../../domain/rates.ts';
import type { Page } from '../../../services/console-views.ts';
import type { LinkView } from '../../../services/links/index.ts';
import type { Merchant } from '../../../services/merchants/index.ts';
import { html, type Safe } from '../../checkout/escape.ts';
import { actionForm, badge, csrfField, facts, money, nextLink } from '../layout.ts';
import type { ShopTime } from '../../../domain/shop-time.ts';

/** "499 INR", or "10–5000 INR, the customer enters it": the amounts as the merchant wrote them. */
export function linkPrice(l: Pick<LinkView, 'price' | 'customer_amount'>): string {
  if (l.price) return `${l.price.amount.text} ${l.price.currency}`;
  const c = l.customer_amount!;
  return `${c.min.text}–${c.max.text} ${c.currency}, the customer enters it`;
}

/** The QR is served by the link's own page route, on this same server: a relative path keeps it same-origin. */
const qrPath = (l: Pick<LinkView, 'url'>, kind: 'svg' | 'png') => `${new URL(l.url).pathname}/qr.${kind}`;

/** The link's state in the operator's words: the API's `inactive` is a link someone deactivated. */
const stateBadge = (status: LinkView['status']): Safe => html`<span class="badge b-${status}">${status === 'inactive' ? 'deactivated' : status}</span>`;

/** Deactivate (an active link) or Activate (any other): one service call each. */
function toggle(csrf: string, l: LinkView): Safe {
  return l.status === 'inactive'
    ? actionForm(csrf, `/console/links/${l.link_id}/activate`, 'Activate', { confirm: `Turn “${l.title}” back on? Customers can pay through it again.` })
    : actionForm(csrf, `/console/links/${l.link_id}/deactivate`, 'Deactivate', { confirm: `Turn “${l.title}” off? Its page says so and takes no payment until activated again.`, danger: true });
}

export function linksBody(options: { links: LinkView[]; merchants: Merchant[]; time: ShopTime; csrf: string }): Safe {
  const rows = options.links.map(
    (l) => html`<li class="row"><span class="main"><a class="title" href="/console/links/${l.link_id}">${l.title}</a><span class="amount">${linkPrice(l)}</span></span>
<span class="sub">${stateBadge(l.status)} <span>paid ${l.payments}×</span>${l.single_use ? html` <span>single use</span>` : ''} <span>created ${options.time.format(Date.parse(l.created_at))}</span></span>
<span class="sub"><a class="mono" href="${l.url}">${l.url}</a></span>
${toggle(options.csrf, l)}</li>`,
  );
  const active = options.merchants.filter((m) => m.status === 'active');
  // With one active merchant (a shop's own payd) the link is its; with several the operator picks.
  const merchant =
    active.length > 1
      ? html`<label>Merchant <select name="merchant" required>${active.map((m) => html`<option value="${m.clientId}">${m.name}</option>`)}</select></label>`
      : '';
  return html`<p class="hint">A link is a page with a title and a price that you forward or print as a QR code; an intent is created only when a customer chooses how to pay.</p>
${rows.length ? html`<ul class="rows">${rows}</ul>` : html`<p class="empty">No payment link yet.</p>`}
<h2>New link</h2>
${active.length === 0
  ? html`<p class="empty">Create a merchant first: a link belongs to one.</p>`
  : html`<form method="post" action="/console/links" class="card stack">${csrfField(options.csrf)}
${merchant}
<label>Title <input name="title" required maxlength="100" placeholder="Blue saree"></label>
<label>Currency <select name="currency">${FIAT_CODES.map((f) => html`<option value="${f}">${f}</option>`)}</select></label>
<fieldset><legend>Fixed price</legend>
<label>Price <input name="price" inputmode="decimal" placeholder="499"></label></fieldset>
<fieldset><legend>Or the customer enters the amount (a counter QR)</legend>
<label>Minimum <input name="min" inputmode="decimal" placeholder="10"></label>
<label>Maximum <input name="max" inputmode="decimal" placeholder="5000"></label></fieldset>
<label class="check"><input type="checkbox" name="single_use" value="1"> Single use: the link closes once paid</label>
<button type="submit" class="primary">Create link</button>
</form>`}`;
}

export function linkBody(options: { link: LinkView; intents: Page<IntentsTable>; now: number; time: ShopTime; csrf: string }): Safe {
  const { link: l } = options;
  const rows = options.intents.items.map(
    (r) => html`<li><a href="/console/intents/${r.id}" class="row">
<span class="main"><span class="title">${r.order_id}</span><span class="amount">${r.method ? money(r.method, amountFromDb(r.pay_amount_minor)) : '—'}</span></span>
<span class="sub">${badge(effectiveStatus({ status: r.status, expiresAt: r.expires_at }, options.now))} <span>${r.method ?? ''}</span> <span>${options.time.format(r.created_at)}</span></span>
</a></li>`,
  );
  return html`<section class="card">${facts([
    ['State', stateBadge(l.status)],
    ['Price', linkPrice(l)],
    ['URL', html`<a class="mono" href="${l.url}">${l.url}</a>`],
    ['Paid', String(l.payments)],
    ['Methods', l.methods?.join(', ') ?? 'every enabled one'],
    ['Single use', l.single_use ? 'yes' : 'no'],
    ['Expires', l.expires_at ? options.time.format(Date.parse(l.expires_at)) : 'never'],
    ['Created', options.time.format(Date.parse(l.created_at))],
  ])}
<div class="qr"><img src="${qrPath(l, 'svg')}" alt="QR code of ${l.url}" width="200" height="200"><a href="${qrPath(l, 'png')}" download="payd-link-${new URL(l.url).pathname.split('/').pop() ?? 'qr'}.png">Download the QR code (PNG)</a></div>
<div class="actions">${toggle(options.csrf, l)}</div></section>
<h2>Payments</h2>
${rows.length ? html`<ul class="rows">${rows}</ul>` : html`<p class="empty">No customer has chosen a way to pay yet.</p>`}
${nextLink(`/console/links/${l.link_id}`, {}, options.intents.next)}`;
}
