import type { Method } from '../../../domain/methods.ts';
import type { ConsoleViews } from '../../../services/console-views.ts';
import { html, type Safe } from '../../checkout/escape.ts';
import { badge, money } from '../layout.ts';
import { sourceProblem, type SourcesReport } from './sources.ts';

type Settled = Array<{ method: Method; count: number; sumMinor: bigint }>;

function takings(title: string, rows: Settled): Safe {
  return html`<section class="card"><h2>${title}</h2>
${rows.length
  ? html`<ul class="sums">${rows.map((r) => html`<li><span class="amount big">${money(r.method, r.sumMinor)}</span><span class="sub">${r.count} settled · ${r.method}</span></li>`)}</ul>`
  : html`<p class="empty">Nothing settled.</p>`}</section>`;
}

/** One glance: is money coming in, and is anything stuck? */
export function todayBody(options: { day: Settled; week: Settled; waiting: Awaited<ReturnType<ConsoleViews['waiting']>>; sources: SourcesReport; now: number }): Safe {
  const w = options.waiting;
  const troubled = options.sources.live.filter((s) => sourceProblem(s.status));
  const lagging = options.sources.recorded.filter((x) => x.asOf !== undefined && x.maxLagMs !== undefined && options.now - x.asOf > x.maxLagMs);
  const sourceLine =
    troubled.length || lagging.length || options.sources.alerts.some((a) => a.silent)
      ? html`<p class="error">${[...troubled.map((s) => `${s.key}: ${s.status.state}`), ...lagging.map((x) => `${x.key}: lagging`), ...options.sources.alerts.filter((a) => a.silent).map((a) => `${a.method} alerts silent`)].join(' · ')} — <a href="/console/sources">Sources</a></p>`
      : html`<p>${badge('ok')} Every source is up. <a href="/console/sources">Sources</a></p>`;
  return html`<div class="grid">
${takings('Today', options.day)}
${takings('Last 7 days', options.week)}
<section class="card"><h2>Waiting</h2>
<ul class="counts">
<li><a href="/console/intents?status=pending"><span class="n">${w.open}</span> open intents</a></li>
<li><a href="/console/payments?view=held"><span class="n">${w.held}</span> held payments waiting for a decision</a></li>
<li><a href="/console/payments?view=unmatched"><span class="n">${w.unmatched}</span> unmatched payments</a></li>
<li><span class="n">${w.backlog}</span> webhooks queued</li>
</ul>
${w.failing.length
  ? html`<h3>Failing webhook endpoints</h3><ul class="rows">${w.failing.map((f) => html`<li class="row"><span class="main"><span class="title">${f.name}</span><span class="err">${f.failed} failed</span></span><span class="sub mono">${f.url ?? 'no URL'}</span></li>`)}</ul>`
  : ''}
</section>
<section class="card"><h2>Sources</h2>${sourceLine}</section>
</div>`;
}
