import type { H3Event } from 'h3';
import type { IntentStatus, PaymentsTable } from '../../db/schema.ts';
import { builtinMethods } from '../../methods/registry.ts';
import type { Clock } from '../../domain/ports.ts';
import type { ConsoleViews, Page } from '../../services/console-views.ts';
import type { ShopTime } from '../../domain/shop-time.ts';
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
import { paymentsBody, rejectionBody, type PaymentsTab, type UnmatchedItem } from './pages/payments.ts';
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
  /** Times as the shop reads them, in its time zone (server.console.timeZone). */
  time: ShopTime;
}

/** How many orders an unmatched payment's row suggests. */
const CANDIDATES = 5;

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

export function viewRoutes(kit: ConsoleKit, deps: ViewDeps): void {
  const { time } = deps;
  /** A date filter ("2026-11-20") as the instant that day begins in the shop. */
  const dateParam = (v: string | undefined, plusDays = 0) => (v === undefined ? undefined : time.dayStart(v, plusDays));

  kit.get('/console', async ({ shell, event }) => {
    const now = deps.clock.now();
    const today = time.startOfDay(now);
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
    return htmlPage(page(shell, { title: 'Intents', section: 'intents', body: intentsBody({ result, params, now, time, statuses: STATUSES, methods: builtinMethods.ids }) }));
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
    return htmlPage(page(shell, { title: `Intent ${intent.orderId}`, section: 'intents', notice: notice(event), body: intentBody({ intent, merchant, payments, held: held.items, events, now: deps.clock.now(), time, csrf: session.csrf }) }));
  });

  kit.get('/console/payments', async ({ shell, event, session }) => {
    const view = query(event, 'view');
    const tab: PaymentsTab = view === 'rejected' || view === 'held' ? view : 'unmatched';
    const cursor = query(event, 'cursor');
    const shown = { csrf: session.csrf, time, now: deps.clock.now() };
    const body =
      tab === 'rejected'
        ? paymentsBody({ tab, rejected: await deps.views.rejections({ cursor, limit: PAGE_SIZE }), ...shown })
        : tab === 'held'
          ? paymentsBody({ tab, held: await deps.held.listPayments({ status: 'held', cursor, limit: PAGE_SIZE }), ...shown })
          : paymentsBody({ tab, unmatched: await unmatchedPage(deps.views, cursor), ...shown });
    return htmlPage(page(shell, { title: 'Payments', section: 'payments', notice: notice(event), body }));
  });

  kit.get('/console/payments/rejected', async ({ shell, event }) => {
    const r = await deps.views.rejection(query(event, 'ref') ?? '');
    return htmlPage(page(shell, { title: 'Rejected observation', section: 'payments', body: rejectionBody(r, time) }));
  });

  kit.get('/console/merchants', async ({ shell, event, session }) => {
    return htmlPage(page(shell, { title: 'Merchants', section: 'merchants', notice: notice(event), body: merchantsBody({ merchants: await deps.merchants.list(), time, csrf: session.csrf }) }));
  });

  kit.get('/console/links', async ({ shell, event, session }) => {
    const [links, merchants] = await Promise.all([deps.links.list({ limit: LINKS_SHOWN }), deps.merchants.list()]);
    return htmlPage(page(shell, { title: 'Links', section: 'links', notice: notice(event), body: linksBody({ links, merchants, time, csrf: session.csrf }) }));
  });

  kit.get('/console/links/:id', async ({ shell, event, session }) => {
    const link = await deps.links.get(event.context.params?.id ?? '');
    const intents = await deps.views.intents({ linkId: link.link_id, cursor: query(event, 'cursor'), limit: PAGE_SIZE }, deps.clock.now());
    return htmlPage(page(shell, { title: `Link ${link.title}`, section: 'links', notice: notice(event), body: linkBody({ link, intents, now: deps.clock.now(), time, csrf: session.csrf }) }));
  });

  kit.get('/console/sources', async ({ shell }) => {
    return htmlPage(page(shell, { title: 'Sources', section: 'sources', body: sourcesBody(await deps.sources(), deps.clock.now(), time) }));
  });
}

/** A page of unmatched payments, each with the orders it may be for. */
async function unmatchedPage(views: ConsoleViews, cursor: string | undefined): Promise<Page<UnmatchedItem>> {
  const page = await views.payments({ status: 'unmatched', cursor, limit: PAGE_SIZE });
  return { next: page.next, items: await Promise.all(page.items.map((payment) => unmatchedItem(views, payment))) };
}

export async function unmatchedItem(views: Pick<ConsoleViews, 'candidates'>, payment: PaymentsTable): Promise<UnmatchedItem> {
  return { payment, candidates: await views.candidates(payment, CANDIDATES) };
}
