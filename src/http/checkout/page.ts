import type { Intent } from '../../domain/intent.ts';
import type { MethodDescriptor } from '../../methods/method.ts';
import { html, type Safe } from './escape.ts';
import { quoteLine, shownAmount } from './format.ts';
import type { ShownPayment } from '../../domain/intent.ts';
import type { CheckoutState } from './state.ts';

export interface AssetUrls {
  js: string;
  css: string;
}

export interface PageInput {
  intent: Intent;
  /** The intent's method: its unit and the page's words for it. */
  method: Pick<MethodDescriptor, 'rules' | 'checkout'>;
  /** Who is paid, as the payment link names them (domain/payee.ts payeeShown): the page's title and heading. */
  payee: string;
  /** The merchant (API client) whose order this is; named beside the order when it differs from the payee. */
  merchantName: string;
  state: CheckoutState;
  qr: Safe;
  assets: AssetUrls;
  /** False in the sandbox: the page then says TEST MODE. */
  livemode: boolean;
  /** Payments held on this intent: the customer is told what arrived and what happens next. */
  held?: readonly ShownPayment[];
  /** The sum credited to the intent so far, minor units; shown on the receipt. */
  receivedMinor?: bigint;
  /** Part paid on a reference (Solana Pay): what is still due and the payment link for exactly that. */
  due?: { minor: bigint; uri: string };
  /** An open intent: where the customer goes back to pay another way (absent: the method is fixed). */
  changeUrl?: string;
}

/** Why a payment is held, in a shopper's words. */
const HELD_WHY: Record<NonNullable<ShownPayment['reason']>, string> = {
  late: 'after this payment request had expired',
  quote_expired: 'after the quoted exchange rate had expired',
  underpaid: 'less than the amount asked',
  overpaid: 'more than the amount asked',
  canceled: 'after this payment request was canceled',
  after_settlement: 'after this order was already paid',
};

/**
 * What the page shows: the intent's status, except that money held on an unpaid intent is its own
 * state (the customer must not be offered the same payment again while the shop decides).
 */
type ShownStatus = CheckoutState['status'] | 'held';

const STATUS_TEXT: Record<ShownStatus, string> = {
  pending: 'Waiting for your payment',
  held: 'We received a payment: the shop is checking it',
  settled: 'Payment received',
  expired: 'This payment request has expired',
  canceled: 'This payment request was canceled',
};

/** "12:05" or "1:02:05"; what the page shows before its script takes over. */
export function formatRemaining(ms: number): string {
  const s = Math.max(0, Math.ceil(ms / 1000));
  const hh = Math.floor(s / 3600);
  const mm = Math.floor((s % 3600) / 60);
  const ss = String(s % 60).padStart(2, '0');
  return hh > 0 ? `${hh}:${String(mm).padStart(2, '0')}:${ss}` : `${mm}:${ss}`;
}

/** The document around a checkout page's body (this page, the choice of method, a payment link's page). */
export function layout(title: string, assets: AssetUrls, body: Safe): string {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<meta name="robots" content="noindex, nofollow">
<title>${title}</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="${assets.css}">
<script src="${assets.js}" defer></script>
</head>
<body>
${body}
</body>
</html>
`.html;
}

/** The hosted checkout page; every merchant or customer value goes through the escaping `html` tag. */
export function checkoutPage(p: PageInput): string {
  const { intent, state } = p;
  const { rules, checkout: words } = p.method;
  // A fiat amount carries its sign instead of the unit.
  const unit = words.fiatSign !== undefined ? '' : rules.unit;
  const shown = (minor: bigint) => shownAmount({ decimals: rules.decimals, fiatSign: words.fiatSign }, minor);
  const full = shown(intent.payAmountMinor);
  // After a part arrived on the reference, the page asks for exactly the rest.
  const pay = p.due ? shown(p.due.minor) : full;
  const uri = p.due?.uri ?? intent.paymentUri;
  const received = p.receivedMinor !== undefined && p.receivedMinor > 0n ? shown(p.receivedMinor) : undefined;
  const withUnit = (a: { text: string }) => html`${a.text}${unit ? html` ${unit}` : html``}`;
  const warning = words.warning;
  const quote = quoteLine(intent, { decimals: rules.decimals, fiatSign: words.fiatSign, unit: rules.unit });
  const held = heldPayments(p);
  const shownStatus: ShownStatus = held.length > 0 ? 'held' : state.status;
  const testBanner = p.livemode
    ? html``
    : html`<p class="test-mode" id="test-mode" role="note"><strong>TEST MODE</strong> · sandbox payment: no real money moves. Do not pay this with a real app.</p>`;
  const body = html`<main class="card" id="checkout" data-intent-id="${intent.id}" data-status="${shownStatus}"
  data-expires-at="${state.expires_at}" data-server-now="${state.now}" data-redirect-url="${state.redirect_url ?? ''}" data-payments="${String(state.payments)}">
  ${testBanner}
  <header class="head">
    <p class="merchant">Pay <strong id="payee-name">${p.payee}</strong></p>
    <p class="order">Order <span id="order-id">${intent.orderId}</span>${p.merchantName !== p.payee ? html` · <span id="merchant-name">${p.merchantName}</span>` : html``}</p>
  </header>

  <div class="status-bar">
    <p class="status" id="status-text" role="status" aria-live="polite">${STATUS_TEXT[shownStatus]}</p>
    <p class="countdown pending-only">Expires in <time id="countdown" datetime="${state.expires_at}">${formatRemaining(Date.parse(state.expires_at) - state.now)}</time></p>
  </div>
  ${refundNote(p)}
  <p class="next-step pending-only" id="next-step">After paying in your app, come back to this page: it updates by itself as soon as your payment is received${intent.returnUrl ? html` and takes you back to ${p.merchantName}` : html``}. No need to reload it.</p>

  <section class="when-pending" aria-label="Payment details">
    <div class="amount-box">
      <p class="label">${p.due ? 'Still to pay' : 'Amount to pay'}</p>
      <p class="amount"><span id="pay-amount" data-copy-value="${pay.plain}">${pay.text}</span>${unit ? html` <span class="unit">${unit}</span>` : html``}
        <button type="button" class="copy" data-copy="pay-amount">Copy</button></p>
      ${p.due && received
        ? html`<p class="note" id="received-note">We received <strong id="received-amount">${withUnit(received)}</strong> of ${withUnit(full)}.</p>
      <p class="note" id="exact-note"><strong>Pay exactly this remaining amount</strong> with the button or code below: they carry your order's reference, so it is added to what you paid.</p>`
        : html`<p class="note" id="exact-note"><strong>Pay exactly this amount</strong>, in one payment: the exact amount is how your payment is recognised.</p>`}
      ${quote ? html`<p class="note" id="quote">${quote.text} <time id="quote-until" datetime="${quote.validUntil}">${quote.until}</time></p>` : html``}
    </div>

    <a class="app-button" id="app-button" href="${uri}">${words.appButton}</a>
    <div class="qr-box">
      <a class="qr-link" href="${uri}" aria-label="Open in a payment app">${p.qr}</a>
      <p class="hint">Scan with your ${words.scanWith} app.</p>
    </div>

    <dl class="details">
      <dt>Method</dt>
      <dd id="method">${words.label}</dd>
      <dt>${words.addressLabel}</dt>
      <dd><code id="address">${intent.receiver}</code>
        <button type="button" class="copy" data-copy="address">Copy</button></dd>
    </dl>
    ${warning ? html`<p class="network-warning" id="network-warning" role="note">${warning}</p>` : html``}
    ${p.changeUrl ? html`<p class="change-method"><a id="change-method" href="${p.changeUrl}">Pay another way</a> (only if you have not paid yet)</p>` : html``}

  </section>

  <section class="when-held" aria-label="Payment being checked">
    ${heldNote(p, held)}
  </section>

  <section class="when-settled" aria-label="Payment received">
    <p class="thanks">Thank you. Keep these details for your records:</p>
    <dl class="details receipt">
      <dt>Amount paid</dt>
      <dd id="paid-amount">${withUnit(received ?? full)}</dd>
      <dt>Reference</dt>
      <dd><code id="paid-ref">${state.transaction_hash ?? ''}</code></dd>
    </dl>
    <p class="redirect" id="redirect-note">Returning you to ${p.merchantName}&hellip; <a id="return-link" href="${state.redirect_url ?? ''}">Continue</a></p>
    <p class="no-redirect">You can close this page now.</p>
  </section>

  <section class="when-expired" aria-label="Payment expired">
    <p>Please do not send money to it. Go back to ${p.merchantName} and start a new payment.</p>
  </section>

  <section class="when-canceled" aria-label="Payment canceled">
    <p>Please do not send money to it. Go back to ${p.merchantName} if you still want to pay.</p>
  </section>

  <noscript><p class="hint">Reload this page to see the latest status.</p></noscript>
</main>`;
  return layout(`Pay ${p.payee}`, p.assets, body);
}

/** Payments held on an intent that is not paid: while there is one, the page is in its held state. */
function heldPayments(p: PageInput): readonly ShownPayment[] {
  if (p.state.status === 'settled') return [];
  return (p.held ?? []).filter((x) => x.status === 'held');
}

function paymentText(p: PageInput, x: ShownPayment): string {
  const { rules, checkout: words } = p.method;
  const unit = words.fiatSign !== undefined ? '' : rules.unit;
  return `${shownAmount({ decimals: rules.decimals, fiatSign: words.fiatSign }, x.amountMinor).text}${unit ? ` ${unit}` : ''}`;
}

function heldNote(p: PageInput, held: readonly ShownPayment[]): Safe {
  if (held.length === 0) return html``;
  const items = held.map((x) => `${paymentText(p, x)} ${HELD_WHY[x.reason ?? 'underpaid']}`);
  return html`<p class="held-note" id="held-note" role="note">We received your payment of ${items.join(' and ')}. The shop has been told and will decide what happens next: they may accept it as payment for this order or return it to you. Please do not pay again. Contact ${p.merchantName} if you have a question.</p>`;
}

/** A held payment the shop says it returned: told once on the page, whatever state the intent is in. */
function refundNote(p: PageInput): Safe {
  if (p.state.status === 'settled') return html``;
  const refunded = (p.held ?? []).filter((x) => x.status === 'refunded');
  if (refunded.length === 0) return html``;
  const again = p.state.status === 'pending' && heldPayments(p).length === 0 ? ' To pay for this order, pay the amount below.' : '';
  return html`<p class="refund-note" id="refund-note" role="note">${p.merchantName} says it returned your payment of ${refunded.map((x) => paymentText(p, x)).join(' and ')}.${again}</p>`;
}

/** Unknown and malformed ids get the same page: nothing tells which intents exist. */
export function notFoundPage(assets: AssetUrls): string {
  return layout(
    'Payment not found',
    assets,
    html`<main class="card" id="not-found">
  <h1>Payment not found</h1>
  <p>This payment link is not valid. Please check the link, or go back to the shop and start the payment again.</p>
</main>`,
  );
}

export function errorPage(assets: AssetUrls): string {
  return layout(
    'Something went wrong',
    assets,
    html`<main class="card" id="error">
  <h1>Something went wrong</h1>
  <p>Please reload this page in a moment.</p>
</main>`,
  );
}
