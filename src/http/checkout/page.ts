import type { IntentsTable } from '../../db/schema.ts';
import { METHOD_RULES, type Method } from '../../domain/methods.ts';
import { formatMinor, formatMinorFixed } from '../../domain/money.ts';
import { html, type Safe } from './escape.ts';
import type { CheckoutState } from './state.ts';

export interface AssetUrls {
  js: string;
  css: string;
}

export interface PageInput {
  row: IntentsTable;
  merchantName: string;
  state: CheckoutState;
  qr: Safe;
  assets: AssetUrls;
}

const METHOD_LABEL: Record<Method, string> = {
  UPI: 'UPI',
  USDT_TRC20: 'USDT on TRON (TRC-20)',
  USDT_SOL: 'USDT on Solana (SPL)',
  SOL: 'SOL on Solana',
};

const STATUS_TEXT: Record<CheckoutState['status'], string> = {
  pending: 'Waiting for your payment',
  settled: 'Payment received',
  expired: 'This payment request has expired',
  canceled: 'This payment request was canceled',
};

/** Rupees always with paise ("100.50"); crypto trimmed to what the wallet is asked for ("25.01"). */
function displayAmount(method: Method, minor: number): string {
  const { decimals } = METHOD_RULES[method];
  return decimals <= 2 ? formatMinorFixed(BigInt(minor), decimals) : formatMinor(BigInt(minor), decimals);
}

/** "12:05" or "1:02:05"; what the page shows before its script takes over. */
export function formatRemaining(ms: number): string {
  const s = Math.max(0, Math.ceil(ms / 1000));
  const hh = Math.floor(s / 3600);
  const mm = Math.floor((s % 3600) / 60);
  const ss = String(s % 60).padStart(2, '0');
  return hh > 0 ? `${hh}:${String(mm).padStart(2, '0')}:${ss}` : `${mm}:${ss}`;
}

function layout(title: string, assets: AssetUrls, body: Safe): string {
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
  const { row, state } = p;
  const method = row.method as Method;
  const unit = METHOD_RULES[method].unit;
  const pay = displayAmount(method, row.pay_amount_minor);
  const addressLabel = method === 'UPI' ? 'UPI ID (VPA)' : 'Address';
  const body = html`<main class="card" id="checkout" data-intent-id="${row.id}" data-status="${state.status}"
  data-expires-at="${state.expires_at}" data-server-now="${state.now}" data-redirect-url="${state.redirect_url ?? ''}">
  <header class="head">
    <p class="merchant">Pay <strong id="merchant-name">${p.merchantName}</strong></p>
    <p class="order">Order <span id="order-id">${row.order_id}</span></p>
  </header>

  <p class="status" id="status-text" role="status" aria-live="polite">${STATUS_TEXT[state.status]}</p>

  <section class="when-pending" aria-label="Payment details">
    <div class="amount-box">
      <p class="label">Amount to pay</p>
      <p class="amount"><span id="pay-amount">${pay}</span> <span class="unit">${unit}</span>
        <button type="button" class="copy" data-copy="pay-amount">Copy</button></p>
      <p class="note" id="exact-note"><strong>Pay exactly this amount</strong> in one payment. The exact amount is how your payment is recognised; a different amount may not be matched.</p>
    </div>

    <dl class="details">
      <dt>Method</dt>
      <dd id="method">${METHOD_LABEL[method]}</dd>
      <dt>${addressLabel}</dt>
      <dd><code id="address">${row.receiver}</code>
        <button type="button" class="copy" data-copy="address">Copy</button></dd>
    </dl>

    <div class="qr-box">
      <a class="qr-link" href="${row.payment_uri}" aria-label="Open in a payment app">${p.qr}</a>
      <p class="hint">Scan with your ${method === 'UPI' ? 'UPI' : 'wallet'} app, or on this phone <a href="${row.payment_uri}">open it in the app</a>.</p>
    </div>

    <p class="countdown">Expires in <time id="countdown" datetime="${state.expires_at}">${formatRemaining(Date.parse(state.expires_at) - state.now)}</time></p>
  </section>

  <section class="when-settled" aria-label="Payment received">
    <p class="big ok">&#10003; Thank you, your payment was received.</p>
    <p class="redirect" id="redirect-note">Returning you to ${p.merchantName}&hellip; <a id="return-link" href="${state.redirect_url ?? ''}">Continue</a></p>
    <p class="no-redirect">You can close this page now.</p>
  </section>

  <section class="when-expired" aria-label="Payment expired">
    <p class="big bad">This payment request has expired.</p>
    <p>Please do not send money to it. Go back to ${p.merchantName} and start a new payment.</p>
  </section>

  <section class="when-canceled" aria-label="Payment canceled">
    <p class="big bad">This payment request was canceled.</p>
    <p>Please do not send money to it. Go back to ${p.merchantName} if you still want to pay.</p>
  </section>

  <noscript><p class="hint">Reload this page to see the latest status.</p></noscript>
</main>`;
  return layout(`Pay ${p.merchantName}`, p.assets, body);
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
