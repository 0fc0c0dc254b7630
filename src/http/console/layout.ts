import { html, Safe } from '../checkout/escape.ts';
import { shownAmount } from '../checkout/format.ts';
import { builtinMethods } from '../../methods/registry.ts';
import type { ConsoleAssets } from './assets.ts';

export type Section = 'today' | 'intents' | 'payments' | 'links' | 'merchants' | 'sources' | null;

const NAV: Array<[Exclude<Section, null>, string, string]> = [
  ['today', 'Today', '/console'],
  ['intents', 'Intents', '/console/intents'],
  ['payments', 'Payments', '/console/payments'],
  ['links', 'Links', '/console/links'],
  ['merchants', 'Merchants', '/console/merchants'],
  ['sources', 'Sources', '/console/sources'],
];

export interface Shell {
  assets: ConsoleAssets;
  livemode: boolean;
  /** Signed in: the passkey's name and the session's CSRF token (sign-out form); null on the sign-in pages. */
  who: { name: string; csrf: string } | null;
}

/** The page frame: skip link, header with navigation and sign-out, main content. */
export function page(shell: Shell, options: { title: string; section: Section; notice?: string | null; body: Safe }): string {
  const nav = shell.who
    ? html`<nav aria-label="Sections"><ul>${NAV.map(([key, label, href]) => html`<li><a href="${href}"${options.section === key ? new Safe(' aria-current="page"') : ''}>${label}</a></li>`)}</ul></nav>`
    : '';
  const signOut = shell.who
    ? html`<form method="post" action="/console/sign-out" class="sign-out">${csrfField(shell.who.csrf)}<span class="who">${shell.who.name}</span> <button type="submit" class="link">Sign out</button></form>`
    : '';
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<meta name="referrer" content="same-origin">
<title>${options.title} · payd console</title>
<link rel="stylesheet" href="${shell.assets.css}">
<link rel="icon" href="${shell.assets.icon}" type="image/svg+xml">
<script src="${shell.assets.js}" defer></script>
</head>
<body>
<a class="skip" href="#main">Skip to content</a>
<header class="top">
<div class="bar"><span class="brand">payd</span>${shell.livemode ? '' : new Safe(' <span class="test">TEST MODE</span>')}${signOut}</div>
${nav}
</header>
<main id="main">
<h1>${options.title}</h1>
${options.notice ? html`<p class="notice" role="status">${options.notice}</p>` : ''}
${options.body}
</main>
</body>
</html>`.html;
}

export const csrfField = (csrf: string) => html`<input type="hidden" name="csrf" value="${csrf}">`;

/** A one-button form for a change (POST with the CSRF token); `confirm` asks first (console.js). */
export function actionForm(csrf: string, action: string, label: string, options: { confirm?: string; danger?: boolean; fields?: Record<string, string> } = {}): Safe {
  const fields = Object.entries(options.fields ?? {}).map(([k, v]) => html`<input type="hidden" name="${k}" value="${v}">`);
  return html`<form method="post" action="${action}" class="inline"${options.confirm ? html` data-confirm="${options.confirm}"` : ''}>${csrfField(csrf)}${fields}<button type="submit"${options.danger ? new Safe(' class="danger"') : ''}>${label}</button></form>`;
}

/** ₹ with Indian grouping, crypto exact (the checkout's formatter), with the method's unit. */
export function money(method: string, minor: bigint | number): string {
  const m = builtinMethods.get(method);
  if (!m) return `${minor} (minor units of ${method})`;
  const text = shownAmount({ decimals: m.rules.decimals, fiatSign: m.checkout.fiatSign }, BigInt(minor)).text;
  return m.checkout.fiatSign !== undefined ? text : `${text} ${m.rules.unit}`;
}

/** A label/value list (a record on a phone-width screen). */
export function facts(rows: Array<[string, unknown]>): Safe {
  return html`<dl class="facts">${rows.map(([k, v]) => html`<div><dt>${k}</dt><dd>${v ?? '—'}</dd></div>`)}</dl>`;
}

/** Who paid, as the bank's alert names them (payer-controlled text: always escaped). */
export function payer(evidence: unknown): string | null {
  let e = evidence;
  if (typeof e === 'string') {
    try {
      e = JSON.parse(e);
    } catch {
      return null;
    }
  }
  if (!e || typeof e !== 'object') return null;
  const { payerName, payerVpa } = e as { payerName?: unknown; payerVpa?: unknown };
  const parts = [payerName, payerVpa].filter((x): x is string => typeof x === 'string' && x.length > 0);
  return parts.length ? parts.join(' · ') : null;
}

export function badge(status: string): Safe {
  return html`<span class="badge b-${status.replace(/[^a-z_]/g, '')}">${status}</span>`;
}

/** "Next page" link keeping the filters. */
export function nextLink(base: string, params: Record<string, string | undefined>, next: string | null): Safe | '' {
  if (!next) return '';
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v) q.set(k, v);
  q.set('cursor', next);
  return html`<p class="pager"><a href="${base}?${q.toString()}" rel="next">Next page →</a></p>`;
}
