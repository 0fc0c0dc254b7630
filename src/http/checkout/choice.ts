import { isFiat } from '../../domain/rates.ts';
import type { MethodOption } from '../../services/intents/open.ts';
import { html, type Safe } from './escape.ts';
import { shownPrice } from './format.ts';
import { layout, type AssetUrls } from './page.ts';

/**
 * The choice of method, grouped the way payers think: UPI; USDT → its networks; USDC → its
 * networks; SOL. Each method is one button of a plain form (no script needed), posting
 * `currency` to `action`, with what it would cost now. Rendered by the open intent's checkout
 * and by a payment link's page.
 */
export interface ChoiceInput {
  options: readonly MethodOption[];
  /** Where the form posts (the open intent's /pay/<id>/choose, or a link's own route). */
  action: string;
  /** The price being paid, as given (decimal text and its fiat). */
  price: { amount: string; currency: string };
  /** The method chosen last, marked as such (the customer came back to change it). */
  current?: string | null;
  /** Hidden fields the form carries as they are (a link's form token). */
  hidden?: Readonly<Record<string, string>>;
}

/** "₹4,999.00", "$12.50": a fiat price as the page shows it. */
const priceText = (price: { amount: string; currency: string }): string => (isFiat(price.currency) ? shownPrice(price.amount, price.currency) : `${price.amount} ${price.currency}`);

/** The options by group, groups in the order their first method comes. */
export function groupOptions(options: readonly MethodOption[]): { group: string; options: MethodOption[] }[] {
  const groups = new Map<string, MethodOption[]>();
  for (const o of options) groups.set(o.group, [...(groups.get(o.group) ?? []), o]);
  return [...groups].map(([group, list]) => ({ group, options: list }));
}

function optionButton(o: MethodOption, current: string | null | undefined): Safe {
  const cost = o.amount === null ? 'rate unavailable right now' : isFiat(o.unit) ? shownPrice(o.amount, o.unit) : `about ${o.amount} ${o.unit}`;
  const name = o.network ?? o.group;
  return html`<button type="submit" name="currency" value="${o.currency}" class="choice-option${o.currency === current ? ' current' : ''}" data-currency="${o.currency}"${o.amount === null ? html` disabled` : html``}>
      <span class="choice-name">${name}</span>
      <span class="choice-cost">${cost}</span>
    </button>`;
}

/** The choice form (a fragment: the caller's page lays it out). */
export function methodChoice(p: ChoiceInput): Safe {
  const hidden = Object.entries(p.hidden ?? {}).map(([k, v]) => html`<input type="hidden" name="${k}" value="${v}">`);
  const groups = groupOptions(p.options).map(
    ({ group, options }) => html`<fieldset class="choice-group" data-group="${group}">
    <legend>${group}${options.length > 1 || options[0].network ? html` <span class="choice-hint">choose the network your wallet sends on</span>` : html``}</legend>
    ${options.map((o) => optionButton(o, p.current))}
  </fieldset>`,
  );
  return html`<form class="choice" id="method-choice" method="post" action="${p.action}">
  <p class="choice-price">Amount: <strong id="choice-price">${priceText(p.price)}</strong></p>
  <h1 class="choice-title">How do you want to pay?</h1>
  ${hidden}
  ${groups}
  <p class="hint">The exact amount to send is shown on the next step; crypto amounts follow today's rate.</p>
</form>`;
}

/** An open intent's checkout before (or when changing) the choice of method. */
export function choicePage(p: ChoiceInput & { intentId: string; payee: string; orderId: string; livemode: boolean; assets: AssetUrls; error?: string }): string {
  const testBanner = p.livemode ? html`` : html`<p class="test-mode" id="test-mode" role="note"><strong>TEST MODE</strong> · sandbox payment: no real money moves.</p>`;
  const body = html`<main class="card" id="choose" data-intent-id="${p.intentId}">
  ${testBanner}
  <header class="head">
    <p class="merchant">Pay <strong id="payee-name">${p.payee}</strong></p>
    <p class="order">Order <span id="order-id">${p.orderId}</span></p>
  </header>
  ${p.error ? html`<p class="choice-error" id="choice-error" role="alert">${p.error}</p>` : html``}
  ${methodChoice(p)}
</main>`;
  return layout(`Pay ${p.payee}`, p.assets, body);
}

/** An open intent that closed before its customer chose a method. */
export function closedChoicePage(p: { payee: string; orderId: string; status: string; assets: AssetUrls }): string {
  const body = html`<main class="card" id="choose-closed" data-status="${p.status}">
  <header class="head">
    <p class="merchant">Pay <strong id="payee-name">${p.payee}</strong></p>
    <p class="order">Order <span id="order-id">${p.orderId}</span></p>
  </header>
  <p class="status" id="status-text" role="status">This payment request is ${p.status}.</p>
  <p>Please do not send money for it. Go back to the shop if you still want to pay.</p>
</main>`;
  return layout(`Pay ${p.payee}`, p.assets, body);
}
