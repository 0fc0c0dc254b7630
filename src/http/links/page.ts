import type { MethodOption } from '../../services/intents/open.ts';
import type { Link, LinkState } from '../../services/links/index.ts';
import { methodChoice } from '../checkout/choice.ts';
import { html } from '../checkout/escape.ts';
import { shownPrice } from '../checkout/format.ts';
import { layout, type AssetUrls } from '../checkout/page.ts';

export interface LinkPageInput {
  link: Link;
  state: LinkState;
  /** Shown instead of the choice when the link takes nothing now (plain words from the service). */
  closedText?: string;
  /** The price being paid and what each method would cost; absent: the customer has not entered an amount yet. */
  choice?: { price: { amount: string; currency: string }; options: readonly MethodOption[] };
  /** Who is paid (the payee name the checkout shows). */
  payee: string;
  assets: AssetUrls;
  livemode: boolean;
  /** A refused amount or choice, in plain words, and what the customer had typed. */
  error?: string;
  amount?: string;
}

/**
 * A payment link's public page: what is sold and its price, then the checkout's own method
 * choice (a customer-entered amount first asks for the amount). Choosing posts the form; only then
 * is an intent created and the customer sent to its checkout. Every merchant or customer value
 * goes through the escaping `html` tag.
 */
export function linkPage(p: LinkPageInput): string {
  const { link } = p;
  const testBanner = p.livemode ? html`` : html`<p class="test-mode" role="note"><strong>TEST MODE</strong> · sandbox payment: no real money moves.</p>`;
  const error = p.error ? html`<p class="link-error" id="link-error" role="alert">${p.error}</p>` : html``;
  const bounds = link.priceAmount === null ? `${shownPrice(link.minAmount!, link.currency)} to ${shownPrice(link.maxAmount!, link.currency)}` : '';
  let content;
  if (p.state !== 'active') {
    content = html`<h1 class="link-title" id="link-title">${link.title}</h1><p class="status" id="link-closed" role="status">${p.closedText ?? ''}</p>`;
  } else if (p.choice) {
    // A customer-entered amount travels with the choice (checked again when it is posted).
    const hidden = link.priceAmount === null ? { amount: p.choice.price.amount } : undefined;
    const change = link.priceAmount === null ? html`<p class="hint"><a href="?" id="change-amount">Change the amount</a></p>` : html``;
    content = html`<p class="link-title" id="link-title">${link.title}</p>${error}${methodChoice({ options: p.choice.options, action: '', price: p.choice.price, hidden })}${change}`;
  } else {
    content = html`<h1 class="link-title" id="link-title">${link.title}</h1>
  <form method="get" action="" class="link-form" id="amount-form">
    ${error}
    <div class="amount-entry">
      <label for="amount">Amount to pay (${link.currency}, ${bounds})</label>
      <input id="amount" name="amount" type="text" inputmode="decimal" autocomplete="off" required maxlength="24" value="${p.amount ?? ''}" aria-describedby="amount-hint">
      <p class="hint" id="amount-hint">Type the amount the shop asked for, then choose how to pay.</p>
    </div>
    <button type="submit" class="link-next" id="amount-next">Continue</button>
  </form>`;
  }
  const body = html`<main class="card" id="link" data-link-state="${p.state}">
  ${testBanner}
  <header class="head">
    <p class="merchant">Pay <strong id="payee-name">${p.payee}</strong></p>
  </header>
  ${content}
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
