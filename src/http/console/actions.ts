import { PaydError } from '../../domain/errors.ts';
import type { EventService } from '../../services/events/operator.ts';
import type { HeldPayments } from '../../services/held-payments.ts';
import type { IntentCancellation } from '../../services/intents/cancel.ts';
import type { MerchantService } from '../../services/merchants/index.ts';
import type { ManualSettlementService } from '../../services/manual-settlement.ts';
import type { LinkInput, LinkService } from '../../services/links/index.ts';
import { htmlPage, seeOther } from './headers.ts';
import { money, page } from './layout.ts';
import { parseDecimal } from '../../domain/money.ts';
import { builtinMethods } from '../../methods/registry.ts';
import { secretsBody } from './pages/merchants.ts';
import { assignAgainBody, assignConfirmBody } from './pages/payments.ts';
import { unmatchedItem } from './views.ts';
import type { ConsoleViews } from '../../services/console-views.ts';
import type { ShopTime } from '../../domain/shop-time.ts';
import type { Clock } from '../../domain/ports.ts';
import { HTTP_STATUS } from '../errors.ts';
import type { ConsoleKit } from './kit.ts';

export interface ActionDeps {
  cancels: Pick<IntentCancellation, 'cancel'>;
  replays: Pick<EventService, 'replay' | 'show'>;
  manualSettlement: Pick<ManualSettlementService, 'settle' | 'preview'>;
  heldActions: Pick<HeldPayments, 'acceptPayment' | 'markRefunded'>;
  merchantActions: Pick<MerchantService, 'create' | 'rotateSecret' | 'revoke' | 'setWebhook'>;
  linkActions: Pick<LinkService, 'create' | 'soleMerchant' | 'deactivate' | 'activate'>;
  /** The assign form's look-ups: an order by its id, the payment and its suggested orders. */
  views: ConsoleViews;
  time: ShopTime;
  clock: Clock;
}

/** As `payd merchant rotate-secret` without --grace: the old secret keeps working 10 minutes. */
const ROTATE_GRACE_SECONDS = 600;

const field = (form: URLSearchParams, name: string, max = 500) => {
  const v = form.get(name)?.trim() ?? '';
  if (v.length > max) throw new PaydError('INVALID_REQUEST', `${name} is too long`);
  return v;
};
const param = (event: { context: { params?: Record<string, string> } }, name: string) => event.context.params?.[name] ?? '';
const intentPath = (id: string) => `/console/intents/${encodeURIComponent(id)}`;
const linkPath = (id: string) => `/console/links/${encodeURIComponent(id)}`;

/** The New link form as the service's input: a fixed price, or min and max the customer enters between. */
function linkInput(form: URLSearchParams): LinkInput {
  const currency = field(form, 'currency', 8);
  const [price, min, max] = [field(form, 'price', 40), field(form, 'min', 40), field(form, 'max', 40)];
  if (price !== '' && (min !== '' || max !== '')) throw new PaydError('INVALID_REQUEST', 'Give either a fixed price or a minimum and maximum for the customer to enter, not both.');
  if (price === '' && (min === '' || max === '')) throw new PaydError('INVALID_REQUEST', 'Give a fixed price, or both a minimum and a maximum for the customer to enter.');
  return {
    title: field(form, 'title', 200),
    ...(price !== '' ? { price: { amount: price, currency } } : { customerAmount: { min, max, currency } }),
    singleUse: form.get('single_use') === '1',
  };
}

/**
 * Every change the console can make: each one service call, the same the CLI command makes,
 * with the passkey's name as the audit log's actor. Forms arrive through kit.post (session
 * and CSRF token checked); success redirects (a reload never repeats it).
 */
export function actionRoutes(kit: ConsoleKit, deps: ActionDeps): void {
  kit.post('/console/intents/:id/cancel', async ({ event, actor }) => {
    const view = await deps.cancels.cancel(param(event, 'id'), { actor });
    return seeOther(`${intentPath(view.intent_id)}?done=canceled`);
  });

  kit.post('/console/events/:id/replay', async ({ event, actor }) => {
    const id = param(event, 'id');
    await deps.replays.replay({ eventId: id }, actor);
    const ev = await deps.replays.show(id);
    return seeOther(ev.intent_id ? `${intentPath(ev.intent_id)}?done=replayed` : '/console?done=replayed');
  });

  // A held payment: accepted (the intent settles with it) or marked refunded, as
  // `payd payments accept` and the API's …/accept and …/refunded do. From the Held tab the answer returns there.
  for (const [verb, act, done] of [
    ['accept', deps.heldActions.acceptPayment, 'accepted'],
    ['refunded', deps.heldActions.markRefunded, 'refunded'],
  ] as const) {
    kit.post(`/console/intents/:id/payments/${verb}`, async ({ event, actor }, form) => {
      const view = await act({ intentId: param(event, 'id'), transactionHash: field(form, 'tx', 300), actor });
      return seeOther(form.get('back') === 'held' ? `/console/payments?view=held&done=${done}` : `${intentPath(view.intent_id)}?done=${done}`);
    });
  }

  /** The order an assign form names: typed (its order id or intent id), else the suggestion picked. */
  async function namedIntent(order: string, picked: string, method: string): Promise<string> {
    if (order === '' && picked === '') throw new PaydError('INVALID_REQUEST', 'Pick one of the suggested orders, or type the order id or the amount it asks.');
    const term = order || picked;
    const found = await deps.views.intents({ q: term, limit: 2 }, deps.clock.now());
    if (found.items.length === 0 && order !== '') return askingIntent(order, method);
    if (found.items.length === 0) throw new PaydError('NOT_FOUND', `No order ${term}: check the order id (or give the intent id).`);
    if (found.items.length > 1) throw new PaydError('CONFLICT', `Order id ${term} belongs to several merchants' orders: give the intent id instead.`);
    const intent = found.items[0]!;
    // Said here in the form's words; the ledger refuses it anyway.
    if (intent.status === 'settled') throw new PaydError('CONFLICT', `Order ${intent.order_id} is already paid: pick another order.`);
    return intent.id;
  }

  /** No order has this id: an amount ("500", "₹1,250.50") names the one open or expired order of the payment's method asking it. */
  async function askingIntent(typed: string, method: string): Promise<string> {
    const decimals = builtinMethods.get(method)?.rules.decimals;
    const parsed = decimals === undefined ? null : parseDecimal(typed.replace(/[₹$,\s]/g, ''), decimals);
    if (!parsed?.ok) throw new PaydError('NOT_FOUND', `No order ${typed}: check the order id (or give the intent id or the amount it asks).`);
    const asking = await deps.views.ordersAsking(method, parsed.minor, 20);
    const amount = money(method, parsed.minor);
    if (asking.length === 0) throw new PaydError('NOT_FOUND', `No open or expired order asks ${amount}: check the amount, or type the order id.`);
    if (asking.length > 1) throw new PaydError('CONFLICT', `Several orders ask ${amount} (${asking.map((r) => r.order_id).join(', ')}): type the order id of the one this payment is for.`);
    return asking[0]!.id;
  }

  kit.post('/console/payments/assign', async ({ shell, actor }, form) => {
    const txRef = field(form, 'tx_ref', 300);
    const typed = { order: field(form, 'order', 200), intentId: field(form, 'intent_id', 64), note: field(form, 'note', 200) };
    const acceptDifference = form.get('accept_difference') === '1';
    try {
      const payment = await deps.views.unmatched(txRef);
      const input = { intentId: await namedIntent(typed.order, typed.intentId, payment?.method ?? ''), txRef };
      if (!acceptDifference) {
        // A payment that is not what the intent is due: show the difference and ask once more.
        const p = await deps.manualSettlement.preview(input);
        if (p.differenceMinor !== 0n) {
          const body = assignConfirmBody(shell.who?.csrf ?? '', { intentId: p.intent.id, orderId: p.intent.orderId, method: p.intent.method, txRef: p.txRef, amountMinor: p.amountMinor, dueMinor: p.dueMinor, differenceMinor: p.differenceMinor, note: typed.note });
          return htmlPage(page(shell, { title: 'Confirm the difference', section: 'payments', body }));
        }
      }
      const r = await deps.manualSettlement.settle({ ...input, note: typed.note || undefined, actor, acceptDifference });
      return seeOther(`${intentPath(r.intent_id)}?done=assigned`);
    } catch (err) {
      // A mistake (no such order, already paid…): the same form again, as typed, saying what was wrong.
      const payment = err instanceof PaydError ? await deps.views.unmatched(txRef) : undefined;
      if (!payment || !(err instanceof PaydError)) throw err;
      const body = assignAgainBody(shell.who?.csrf ?? '', await unmatchedItem(deps.views, payment), deps.time, deps.clock.now(), { ...typed, error: err.message });
      return htmlPage(page(shell, { title: 'Not assigned', section: 'payments', body }), HTTP_STATUS[err.code]);
    }
  });

  kit.post('/console/links', async ({ actor }, form) => {
    const input = linkInput(form);
    const merchant = field(form, 'merchant', 64) || (await deps.linkActions.soleMerchant());
    const link = await deps.linkActions.create(merchant, input, actor);
    return seeOther(`${linkPath(link.link_id)}?done=link-created`);
  });

  for (const [verb, done] of [
    ['deactivate', 'link-deactivated'],
    ['activate', 'link-activated'],
  ] as const) {
    kit.post(`/console/links/:id/${verb}`, async ({ event, actor }) => {
      const link = await deps.linkActions[verb](param(event, 'id'), { actor });
      return seeOther(`${linkPath(link.link_id)}?done=${done}`);
    });
  }

  kit.post('/console/merchants', async ({ shell, actor }, form) => {
    const c = await deps.merchantActions.create({ name: field(form, 'name', 100), webhookUrl: field(form, 'webhook_url') || null }, actor);
    const body = secretsBody(`Merchant ${c.name} created`, [
      ['Name', c.name],
      ['client_id', c.client_id],
      ['client_secret', c.client_secret],
      ['webhook_secret', c.webhook_secret],
      ['Webhook URL', c.webhook_url],
    ]);
    return htmlPage(page(shell, { title: `Merchant ${c.name} created`, section: 'merchants', body }));
  });

  kit.post('/console/merchants/:id/rotate', async ({ shell, event, actor }) => {
    const r = await deps.merchantActions.rotateSecret(param(event, 'id'), ROTATE_GRACE_SECONDS, actor);
    const body = secretsBody('New client secret', [
      ['client_id', r.client_id],
      ['client_secret', r.client_secret],
      ['Old secret works until', r.previous_valid_until === null ? null : deps.time.format(Date.parse(r.previous_valid_until))],
    ]);
    return htmlPage(page(shell, { title: 'New client secret', section: 'merchants', body }));
  });

  kit.post('/console/merchants/:id/revoke', async ({ event, actor }) => {
    await deps.merchantActions.revoke(param(event, 'id'), actor);
    return seeOther('/console/merchants?done=revoked');
  });

  kit.post('/console/merchants/:id/webhook', async ({ event, actor }, form) => {
    await deps.merchantActions.setWebhook(param(event, 'id'), field(form, 'url', 2000) || null, actor);
    return seeOther('/console/merchants?done=webhook');
  });
}
