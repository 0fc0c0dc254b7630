import type { SourceStatus } from '../../../workers/source-health.ts';
import { html, type Safe } from '../../checkout/escape.ts';
import { badge, facts } from '../layout.ts';
import type { ShopTime } from '../../../domain/shop-time.ts';

export interface SourcesReport {
  /** This process's role: leader runs the sources; standby/off see only what the leader recorded. */
  workers: 'leader' | 'standby' | 'off';
  /** Live states (leader only). */
  live: Array<{ key: string; name: string; status: SourceStatus }>;
  /** Position the leader last recorded per configured method (ms), and its lag limit. */
  recorded: Array<{ key: string; asOf: number | undefined; maxLagMs: number | undefined }>;
  /** Methods with a silence watch (UPI's mailbox): newest verified alert per account, and whether alerts went silent. */
  alerts: Array<{ method: string; accounts: Array<{ bank: string; account: string; lastAlertAt: number | null }>; silent: boolean }>;
  /** The rate each priced pair would use now, and where it came from (the sandbox's: "simulated"). */
  rates: Array<{ pair: string; rate: string | null; source: string | null }>;
  /** A sandbox: every method simulated (method id and name), nothing watched upstream; null when live. */
  sandbox: { methods: Array<{ id: string; label: string }> } | null;
}

const age = (ms: number) => (ms < 90_000 ? `${Math.round(ms / 1000)} s` : ms < 5_400_000 ? `${Math.round(ms / 60_000)} min` : `${Math.round(ms / 3_600_000)} h`);

export const sourceProblem = (s: SourceStatus) => !['ok', 'standby'].includes(s.state);

export function sourcesBody(report: SourcesReport, now: number, time: ShopTime): Safe {
  const live = report.live.map(
    (s) => html`<li class="row"><span class="main"><span class="title">${s.key}</span>${badge(s.status.state)}</span>
${facts([
  ['Source', s.name],
  ['Lag', s.status.lag_seconds === undefined ? null : `${s.status.lag_seconds} s${s.status.max_lag_seconds === undefined ? '' : ` (limit ${s.status.max_lag_seconds} s)`}`],
  ['Last good cycle', s.status.last_ok_at ? time.format(Date.parse(s.status.last_ok_at)) : null],
  ['Last error', s.status.last_error ? html`<span class="err">${s.status.last_error}</span>` : null],
])}</li>`,
  );
  const recorded = report.recorded.map((x) => {
    const lag = x.asOf === undefined ? undefined : Math.max(0, now - x.asOf);
    const over = lag !== undefined && x.maxLagMs !== undefined && lag > x.maxLagMs;
    return html`<li class="row"><span class="main"><span class="title">${x.key}</span>${badge(x.asOf === undefined ? 'unknown' : over ? 'lagging' : 'ok')}</span>
<span class="sub">${lag === undefined ? 'not recorded yet (no payd serve has run this source)' : `${age(lag)} behind its upstream`}${x.maxLagMs === undefined ? '' : ` · limit ${x.maxLagMs / 1000} s`}</span></li>`;
  });
  const alerts = report.alerts.map(
    (w) => html`<h2>${w.method} bank alerts</h2>${w.silent ? html`<p class="error" role="alert">Silent: no verified bank alert arrived although ${w.method} payments were requested. Check that the bank’s alerts still reach the mailbox.</p>` : ''}
<ul class="rows">${w.accounts.map((a) => html`<li class="row"><span class="main"><span class="title">${a.bank.toUpperCase()} …${a.account}</span></span><span class="sub">Last verified alert: ${a.lastAlertAt === null ? 'none yet' : `${time.format(a.lastAlertAt)} (${age(now - a.lastAlertAt)} ago)`}</span></li>`)}</ul>`,
  );
  const rates = report.rates.map(
    (r) => html`<li class="row"><span class="main"><span class="title">${r.pair}</span><span class="amount">${r.rate ?? 'no fresh rate'}</span></span><span class="sub">${r.source === 'simulated' ? 'simulated (the sandbox’s fixed rate, not a market)' : (r.source ?? 'no source answered')}</span></li>`,
  );
  const ratesPart = rates.length ? html`<h2>Rates for prices</h2><ul class="rows">${rates}</ul>` : '';
  if (report.sandbox) {
    return html`<p class="notice warn" role="status">Sandbox: nothing here watches a bank mailbox or a chain. Every method is simulated: pay an intent with <code>npx payd sandbox pay &lt;intent_id&gt;</code>, and it settles as a real payment would.</p>
<h2>Simulated sources</h2>
<ul class="rows">${report.sandbox.methods.map((m) => html`<li class="row"><span class="main"><span class="title">${m.label}</span>${badge('simulated')}</span><span class="sub"><span>${m.id}</span> <span>paid by <code>payd sandbox pay</code></span></span></li>`)}</ul>
${ratesPart}`;
  }
  return html`<p class="hint">Workers in this process: <strong>${report.workers}</strong>${report.workers === 'leader' ? '' : ' (another process runs the sources; lag below is what it last recorded)'}.</p>
${live.length ? html`<h2>Running here</h2><ul class="rows">${live}</ul>` : ''}
<h2>Lag as recorded</h2>
${recorded.length ? html`<ul class="rows">${recorded}</ul>` : html`<p class="empty">No payment method configured.</p>`}
${alerts}
${ratesPart}`;
}
