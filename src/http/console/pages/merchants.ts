import type { IssuedCredentials, Merchant } from '../../../services/merchants/index.ts';
import { html, type Safe } from '../../checkout/escape.ts';
import { actionForm, badge, csrfField, facts } from '../layout.ts';
import type { ShopTime } from '../../../domain/shop-time.ts';

export function merchantsBody(options: { merchants: Merchant[]; time: ShopTime; csrf: string }): Safe {
  const rows = options.merchants.map(
    (m) => html`<li class="row"><span class="main"><span class="title">${m.name}</span>${badge(m.status)}</span>
<span class="sub"><span class="mono">${m.clientId}</span> <span>since ${options.time.format(m.createdAt)}</span></span>
<span class="sub">Webhook: ${m.webhookUrl ? html`<span class="mono">${m.webhookUrl}</span>` : 'none'}</span>
${m.status === 'active'
  ? html`<details><summary>Manage</summary>
<form method="post" action="/console/merchants/${m.clientId}/webhook" class="stack">${csrfField(options.csrf)}
<label>Webhook URL <input type="url" name="url" value="${m.webhookUrl ?? ''}" placeholder="https://shop.example/payd/webhook"></label>
<button type="submit">Save webhook URL</button></form>
<div class="actions">
${actionForm(options.csrf, `/console/merchants/${m.clientId}/rotate`, 'Rotate client secret', { confirm: `Issue a new client secret for ${m.name}? The old one keeps working for 10 minutes.` })}
${actionForm(options.csrf, `/console/merchants/${m.clientId}/revoke`, 'Revoke merchant', { confirm: `Revoke ${m.name}? Its API keys stop working and cannot be restored.`, danger: true })}
</div></details>`
  : ''}</li>`,
  );
  return html`${rows.length ? html`<ul class="rows">${rows}</ul>` : html`<p class="empty">No merchant yet.</p>`}
<h2>New merchant</h2>
<form method="post" action="/console/merchants" class="card stack">${csrfField(options.csrf)}
<label>Name <input name="name" required maxlength="100"></label>
<label>Webhook URL (optional) <input type="url" name="webhook_url" placeholder="https://shop.example/payd/webhook"></label>
<button type="submit" class="primary">Create merchant</button>
</form>`;
}

/** The one time a secret is shown: after create or rotate. */
export function secretsBody(title: string, rows: Array<[string, string | null]>): Safe {
  return html`<section class="card">
<p class="notice warn" role="status">Copy these now: they are not shown again.</p>
${facts(rows.map(([k, v]) => [k, v === null ? null : html`<span class="mono secret">${v}</span>`]))}
<p><a href="/console/merchants">Done — back to merchants</a></p>
</section>`;
}

export type { IssuedCredentials };
