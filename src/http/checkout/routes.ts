import type { H3, H3Event } from 'h3';
import { payeeShown } from '../../domain/payee.ts';
import type { Intent, IntentMoney } from '../../domain/intent.ts';
import type { Clock, Logger } from '../../domain/ports.ts';
import type { MethodRegistry } from '../../methods/registry.ts';
import type { IntentService } from '../../services/intents/index.ts';
import type { MerchantService } from '../../services/merchants/index.ts';
import { loadAssets, type Assets } from './assets.ts';
import { clientKey, type RateLimiter } from '../rate-limit.ts';
import type { PeerRequest } from '../client-address.ts';
import { htmlResponse, jsonResponse, securityHeaders } from './headers.ts';
import { checkoutPage, errorPage, notFoundPage } from './page.ts';
import { createQrCache } from './qr.ts';
import { checkoutState, type CheckoutState } from './state.ts';
import type { MethodDescriptor } from '../../methods/method.ts';
import { PaydError } from '../../domain/errors.ts';
import { effectiveStatus } from '../../domain/intent.ts';
import { readForm } from '../console/form.ts';
import { choicePage, closedChoicePage } from './choice.ts';

export interface CheckoutDeps {
  intents: Pick<IntentService, 'find' | 'chooseMethod' | 'methodOptions'>;
  merchants: Pick<MerchantService, 'get'>;
  clock: Clock;
  log: Logger;
  /** False in the sandbox: the page says TEST MODE. */
  livemode: boolean;
  /** The methods' words for the page (labels, warnings). */
  methods: MethodRegistry;
  /** The configured payee name (a method's payeeName, '' when none): the page names the payee as the wallet does. */
  payeeName: string;
  /** Per client IP (server.publicRateLimit): the page renders a QR and reads the database. */
  limiter?: RateLimiter;
  /** The client's address the limiter counts (behind a trusted proxy: from X-Forwarded-For). */
  clientAddress: (req: PeerRequest) => string | undefined;
  /** The payments on an intent, for the held-payment note; absent: not shown. */
  money?: (intent: Intent) => Promise<IntentMoney>;
}

/**
 * What a pending intent whose payments accumulate (Solana Pay reference) still asks after a part
 * arrived; undefined when nothing was credited yet, or the method does not accumulate.
 */
function remainderDue(intent: Intent, state: CheckoutState, method: Pick<MethodDescriptor, 'remainderUri'>, money: IntentMoney | undefined): bigint | undefined {
  if (state.status !== 'pending' || !method.remainderUri || !intent.reference || !money) return undefined;
  const due = intent.payAmountMinor - money.receivedMinor;
  return money.receivedMinor > 0n && due > 0n ? due : undefined;
}

/**
 * The hosted checkout (the intent's checkout_url, docs/api.md): public, no credentials; the intent's
 * UUID v4 is the capability. Routes return complete Responses with their own
 * security headers, so the API's JSON error wrapper never touches them.
 */
export function registerCheckout(app: H3, deps: CheckoutDeps): void {
  const assets: Assets = loadAssets();
  const param = (event: H3Event) => event.context.params?.intent_id ?? '';
  const qr = createQrCache();

  // On the checkout's own routes only (not app-wide middleware, which every API request would pass through).
  const limiter = deps.limiter;
  const limited = limiter
    ? {
        middleware: [
          (event: H3Event) => {
            const req = event.runtime?.node?.req;
            const wait = limiter.take(clientKey(req ? deps.clientAddress(req) : undefined));
            if (wait === 0) return undefined;
            const headers = securityHeaders('application/json; charset=utf-8');
            headers.set('retry-after', String(wait));
            return new Response(JSON.stringify({ detail: 'too many requests from this address; slow down', code: 'RATE_LIMITED' }), { status: 429, headers });
          },
        ],
      }
    : undefined;

  /** Every failure is logged and shown as a plain page or JSON error, never a stack trace. */
  const guard = (kind: 'html' | 'json', handler: (event: H3Event) => Promise<Response>) => async (event: H3Event) => {
    try {
      return await handler(event);
    } catch (err) {
      deps.log.error('checkout request failed', { path: event.url.pathname, error: err instanceof Error ? err.stack : String(err) });
      return kind === 'html' ? htmlResponse(errorPage(assets.urls), 500) : jsonResponse({ detail: 'internal error', code: 'INTERNAL' }, 500);
    }
  };

  app.get('/pay/assets/:name', async (event) => assets.serve(event.context.params?.name ?? '') ?? htmlResponse(notFoundPage(assets.urls), 404), limited);

  /** An open intent's choice of method: before the first choice, or when the customer asks to change it. */
  async function choice(intent: Intent, payee: string, error?: { message: string; status: number }): Promise<Response> {
    const open = intent.open!;
    const status = effectiveStatus(intent, deps.clock.now());
    // A refused choice keeps its status (409) though the page only says the request is closed.
    if (status !== 'pending') return htmlResponse(closedChoicePage({ payee, orderId: intent.orderId, status, assets: assets.urls }), error?.status);
    const options = await deps.intents.methodOptions(open.price, open.methods);
    return htmlResponse(
      choicePage({ intentId: intent.id, payee, orderId: intent.orderId, livemode: deps.livemode, assets: assets.urls, options, action: `/pay/${intent.id}/choose`, price: open.price, current: intent.method, error: error?.message }),
      error?.status,
    );
  }

  const page = guard('html', async (event) => {
    const intent = await deps.intents.find(param(event));
    if (!intent) return htmlResponse(notFoundPage(assets.urls), 404);
    const merchant = await deps.merchants.get(intent.merchantId);
    const state = checkoutState(intent, deps.clock.now());
    if (intent.open && (intent.method === null || (state.status === 'pending' && event.url.searchParams.has('choose')))) {
      return choice(intent, payeeShown(deps.payeeName, merchant.name));
    }
    const money = deps.money && (intent.paymentCount ?? 0) > 0 ? await deps.money(intent) : undefined;
    const method = deps.methods.of(intent.method!);
    const due = remainderDue(intent, state, method, money);
    const uri = due ? method.remainderUri!(intent.paymentUri, due) : intent.paymentUri;
    return htmlResponse(
      checkoutPage({ intent, method, payee: payeeShown(deps.payeeName, merchant.name), merchantName: merchant.name, state, qr: await qr.svg(intent.id, uri), assets: assets.urls, livemode: deps.livemode, held: money?.payments, receivedMinor: money?.receivedMinor, due: due ? { minor: due, uri } : undefined, changeUrl: intent.open && state.status === 'pending' ? `/pay/${intent.id}?choose` : undefined }),
    );
  });
  app.get('/pay/:intent_id', page, limited);
  // HEAD (link checkers, uptime probes, chat-app previews) answers like GET, without the body.
  app.on('HEAD', '/pay/:intent_id', async (event) => {
    const res = await page(event);
    return new Response(null, { status: res.status, headers: res.headers });
  }, limited);

  // The customer's choice on an open intent (a plain form post): the intent's page then shows that method.
  // Per client IP like the page; each intent reserves at most MAX_OPEN_CHOICES amounts whoever clicks.
  app.post(
    '/pay/:intent_id/choose',
    guard('html', async (event) => {
      const intent = await deps.intents.find(param(event));
      if (!intent) return htmlResponse(notFoundPage(assets.urls), 404);
      const merchant = await deps.merchants.get(intent.merchantId);
      const currency = (await readForm(event)).get('currency') ?? '';
      try {
        await deps.intents.chooseMethod(intent.id, currency, merchant);
      } catch (err) {
        if (!(err instanceof PaydError)) throw err;
        const status = err.code === 'INTENT_NOT_FOUND' ? 404 : err.code === 'AMOUNT_UNAVAILABLE' || err.code === 'RATE_UNAVAILABLE' ? 503 : 409;
        const now = await deps.intents.find(intent.id);
        return choice(now ?? intent, payeeShown(deps.payeeName, merchant.name), { message: err.message, status });
      }
      const headers = securityHeaders('text/plain; charset=utf-8');
      headers.set('location', `/pay/${intent.id}`);
      return new Response(null, { status: 303, headers });
    }),
    limited,
  );

  // The fallback when websockets are blocked: this intent's state only, nothing more than the page shows.
  app.get(
    '/pay/:intent_id/status',
    guard('json', async (event) => {
      const row = await deps.intents.find(param(event));
      if (!row) return jsonResponse({ detail: 'no such payment', code: 'INTENT_NOT_FOUND' }, 404);
      return jsonResponse(checkoutState(row, deps.clock.now()));
    }),
    limited,
  );

  // Reached only when the server was started without the websocket handler: tell the page to poll.
  app.get('/pay/:intent_id/ws', async () => jsonResponse({ detail: 'websocket upgrade required', code: 'UPGRADE_REQUIRED' }, 426), limited);
}
