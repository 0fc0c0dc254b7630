import type { H3Event } from 'h3';
import type { IntentStatus } from '../../db/schema.ts';
import { builtinMethods } from '../../methods/registry.ts';
import type { Clock } from '../../domain/ports.ts';
import type { ConsoleViews } from '../../services/console-views.ts';
import type { EventService } from '../../services/events/operator.ts';
import type { HeldPayments } from '../../services/held-payments.ts';
import type { IntentService } from '../../services/intents/index.ts';
import type { LinkService } from '../../services/links/index.ts';
import type { MerchantService } from '../../services/merchants/index.ts';
import type { createPaymentQueries } from '../../services/payments.ts';
import { htmlPage } from './headers.ts';
import { page } from './layout.ts';
import { intentBody, intentsBody } from './pages/intents.ts';
import { linkBody, linksBody } from './pages/links.ts';
import { merchantsBody } from './pages/merchants.ts';
import { paymentsBody, rejectionBody, type PaymentsTab } from './pages/payments.ts';
import { sourcesBody, type SourcesReport } from './pages/sources.ts';
import { todayBody } from './pages/today.ts';
import type { ConsoleKit } from './kit.ts';

export interface ViewDeps {
  views: ConsoleViews;
  intents: Pick<IntentService, 'find'>;
  payments: Pick<ReturnType<typeof createPaymentQueries>, 'forIntent'>;
  events: Pick<EventService, 'forIntent'>;
  merchants: Pick<MerchantService, 'list' | 'get'>;
  /** Held payments: the list the CLI's `payd payments list --held` reads. */
  held: Pick<HeldPayments, 'listPayments'>;
  /** Payment links of every merchant, as `payd links list` reads them; one by id or slug. */
  links: Pick<LinkService, 'list' | 'get'>;
  /** Each source's state as this process sees it, the leader's recorded lag, the UPI alert watch. */
  sources: () => Promise<SourcesReport>;
  clock: Clock;
}

const PAGE_SIZE = 25;
/** The links page lists the newest links (the service's own cap); older ones stay reachable by URL. */
const LINKS_SHOWN = 500;
const STATUSES: IntentStatus[] = ['pending', 'settled', 'expired', 'canceled'];
/** Notices a redirect may ask for (a closed set: nothing from the URL is shown as is). */
const NOTICES: Record<string, string> = {
  canceled: 'Intent canceled; the merchant is sent intent.canceled.',
  replayed: 'Webhook queued for delivery again.',
  accepted: 'Held payment accepted: the intent is settled and the merchant is sent payment.success.',
  refunded: 'Payment marked refunded: the merchant is sent payment.refunded. payd moved no money.',
  assigned: 'Payment assigned: the intent is settled and the merchant is sent payment.success.',
  rotated: 'New client secret issued.',
  revoked: 'Merchant revoked: its API keys stopped working.',
  webhook: 'Webhook endpoint saved.',
  'link-created': 'Payment link created: forward its URL or print its QR code.',
  'link-deactivated': 'Link deactivated: its page says so and takes no payment.',
  'link-activated': 'Link activated: customers can pay through it again.',
};

const query = (event: H3Event, name: string) => event.url.searchParams.get(name)?.slice(0, 200) ?? undefined;
const notice = (event: H3Event) => NOTICES[query(event, 'done') ?? ''] ?? null;

/** Start of the server's local day, ms. */
function startOfDay(now: number): number {
  const d = new Date(now);
  d.setHours(0, 0, 0, 0);
  return d.getTime();
}

/** "2026-11-20" → ms at that local midnight; anything else → undefined. */
function dateParam(v: string | undefined, plusDays = 0): number | undefined {
  if (!v || !/^\d{4}-\d{2}-\d{2}$/.test(v)) return undefined;
  const [y, m, day] = v.split('-').map(Number);
  const t = new Date(y, m - 1, day + plusDays).getTime();
  return Number.isFinite(t) ? t : undefined;
}

export function viewRoutes(kit: ConsoleKit, deps: ViewDeps): void {
  kit.get('/console', async ({ shell, event }) => {
    const now = deps.clock.now();
    const today = startOfDay(now);
    const [day, week, waiting, sources] = await Promise.all([deps.views.settledSince(today), deps.views.settledSince(today - 6 * 86_400_000), deps.views.waiting(now), deps.sources()]);
    return htmlPage(page(shell, { title: 'Today', section: 'today', notice: notice(event), body: todayBody({ day, week, waiting, sources, now }) }));
  });

  kit.get('/console/intents', async ({ shell, event }) => {
    const status = query(event, 'status') as IntentStatus | undefined;
    const method = query(event, 'method');
    const filter = {
      q: query(event, 'q'),
      status: status && STATUSES.includes(status) ? status : undefined,
      method: method && builtinMethods.get(method) ? method : undefined,
      from: dateParam(query(event, 'from')),
      to: dateParam(query(event, 'to'), 1),
      cursor: query(event, 'cursor'),
      limit: PAGE_SIZE,
    };
    const now = deps.clock.now();
    const result = await deps.views.intents(filter, now);
    const params = { q: filter.q, status: filter.status, method: filter.method, from: query(event, 'from'), to: query(event, 'to') };
    return htmlPage(page(shell, { title: 'Intents', section: 'intents', body: intentsBody({ result, params, now, statuses: STATUSES, methods: builtinMethods.ids }) }));
  });

  kit.get('/console/intents/:id', async ({ shell, event, session }) => {
    const id = event.context.params?.id ?? '';
    const intent = await deps.intents.find(id);
    if (!intent) return htmlPage(page(shell, { title: 'Intent not found', section: 'intents', body: intentBody.missing(id) }), 404);
    const [merchant, payments, events, held] = await Promise.all([
      deps.merchants.get(intent.merchantId),
      deps.payments.forIntent(intent.id),
      deps.events.forIntent(intent.id),
      deps.held.listPayments({ status: 'held', intentId: intent.id, limit: PAGE_SIZE }),
    ]);
    return htmlPage(page(shell, { title: `Intent ${intent.orderId}`, section: 'intents', notice: notice(event), body: intentBody({ intent, merchant, payments, held: held.items, events, now: deps.clock.now(), csrf: session.csrf }) }));
  });

  kit.get('/console/payments', async ({ shell, event, session }) => {
    const view = query(event, 'view');
    const tab: PaymentsTab = view === 'rejected' || view === 'held' ? view : 'unmatched';
    const cursor = query(event, 'cursor');
    const body =
      tab === 'rejected'
        ? paymentsBody({ tab, rejected: await deps.views.rejections({ cursor, limit: PAGE_SIZE }), csrf: session.csrf })
        : tab === 'held'
          ? paymentsBody({ tab, held: await deps.held.listPayments({ status: 'held', cursor, limit: PAGE_SIZE }), csrf: session.csrf })
          : paymentsBody({ tab, unmatched: await deps.views.payments({ status: 'unmatched', cursor, limit: PAGE_SIZE }), csrf: session.csrf });
    return htmlPage(page(shell, { title: 'Payments', section: 'payments', notice: notice(event), body }));
  });

  kit.get('/console/payments/rejected', async ({ shell, event }) => {
    const r = await deps.views.rejection(query(event, 'ref') ?? '');
    return htmlPage(page(shell, { title: 'Rejected observation', section: 'payments', body: rejectionBody(r) }));
  });

  kit.get('/console/merchants', async ({ shell, event, session }) => {
    return htmlPage(page(shell, { title: 'Merchants', section: 'merchants', notice: notice(event), body: merchantsBody({ merchants: await deps.merchants.list(), csrf: session.csrf }) }));
  });

  kit.get('/console/links', async ({ shell, event, session }) => {
    const [links, merchants] = await Promise.all([deps.links.list({ limit: LINKS_SHOWN }), deps.merchants.list()]);
    return htmlPage(page(shell, { title: 'Links', section: 'links', notice: notice(event), body: linksBody({ links, merchants, csrf: session.csrf }) }));
  });

  kit.get('/console/links/:id', async ({ shell, event, session }) => {
    const link = await deps.links.get(event.context.params?.id ?? '');
    const intents = await deps.views.intents({ linkId: link.link_id, cursor: query(event, 'cursor'), limit: PAGE_SIZE }, deps.clock.now());
    return htmlPage(page(shell, { title: `Link ${link.title}`, section: 'links', notice: notice(event), body: linkBody({ link, intents, now: deps.clock.now(), csrf: session.csrf }) }));
  });

  kit.get('/console/sources', async ({ shell }) => {
    return htmlPage(page(shell, { title: 'Sources', section: 'sources', body: sourcesBody(await deps.sources(), deps.clock.now()) }));
  });
}
