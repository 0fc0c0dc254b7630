import { html, type Safe } from '../checkout/escape.ts';
import { shownPrice } from '../checkout/format.ts';
import type { AssetUrls } from '../checkout/page.ts';
import type { Link, LinkState } from '../../services/links/index.ts';

/** One method the customer may choose: its id (the form's value) and the checkout's label for it. */
export interface LinkChoice {
  method: string;
  label: string;
}

export interface LinkPageInput {
  link: Link;
  state: LinkState;
  /** Shown instead of the choice when the link takes nothing now (plain words from the service). */
  closedText?: string;
  choices: readonly LinkChoice[];
  /** Who is paid (the payee name the checkout shows). */
  payee: string;
  assets: AssetUrls;
  livemode: boolean;
  /** A refused choice, in plain words, and what the customer had typed. */
  error?: string;
  amount?: string;
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
</head>
<body>
${body}
</body>
</html>
`.html;
}

/**
 * A payment link's public page: what is sold and its price (or a box for the amount), then the
 * methods to pay with. Choosing posts the form; only then is an intent created, and the customer
 * lands on its checkout. Every merchant or customer value goes through the escaping `html` tag.
 */
export function linkPage(p: LinkPageInput): string {
  const { link } = p;
  const testBanner = p.livemode ? html`` : html`<p class="test-mode" role="note"><strong>TEST MODE</strong> · sandbox payment: no real money moves.</p>`;
  const price = link.priceAmount !== null ? shownPrice(link.priceAmount, link.currency) : null;
  const closed = p.state !== 'active';
  const amountField =
    link.priceAmount === null
      ? html`<div class="amount-entry">
      <label for="amount">Amount to pay (${link.currency}, ${shownPrice(link.minAmount!, link.currency)} to ${shownPrice(link.maxAmount!, link.currency)})</label>
      <input id="amount" name="amount" type="text" inputmode="decimal" autocomplete="off" required maxlength="24" pattern="[0-9]+([.][0-9]{1,2})?" value="${p.amount ?? ''}" aria-describedby="amount-hint">
      <p class="hint" id="amount-hint">Type the amount the shop asked for, then choose how to pay.</p>
    </div>`
      : html``;
  const body = html`<main class="card" id="link" data-link-state="${p.state}">
  ${testBanner}
  <header class="head">
    <p class="merchant">Pay <strong id="payee-name">${p.payee}</strong></p>
    <h1 id="link-title">${link.title}</h1>
    ${price ? html`<p class="amount" id="link-price">${price}</p>` : html``}
  </header>
  ${
    closed
      ? html`<p class="status" id="link-closed" role="status">${p.closedText ?? ''}</p>`
      : html`<form method="post" action="" class="link-form" id="link-form">
    ${p.error ? html`<p class="network-warning" id="link-error" role="alert">${p.error}</p>` : html``}
    ${amountField}
    <fieldset class="choices">
      <legend>Choose how to pay</legend>
      ${p.choices.map((c) => html`<button type="submit" class="choice" name="method" value="${c.method}">${c.label}</button>`)}
    </fieldset>
    <p class="hint">The exact amount to pay is shown on the next page.</p>
  </form>`
  }
</main>`;
  return layout(`${link.title}: pay ${p.payee}`, p.assets, body);
}

/** A short page in plain words: too many requests, or our own failure. */
export function noticePage(assets: AssetUrls, title: string, text: string): string {
  return layout(title, assets, html`<main class="card"><h1>${title}</h1><p>${text}</p></main>`);
}

/** Unknown and malformed slugs get the same page: nothing tells which links exist. */
export function linkNotFoundPage(assets: AssetUrls): string {
  return layout('Payment link not found', assets, html`<main class="card"><h1>Payment link not found</h1><p>Check the link you were sent, or ask the shop for a new one.</p></main>`);
}
