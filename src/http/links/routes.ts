import type { H3, H3Event } from 'h3';
import { PaydError } from '../../domain/errors.ts';
import type { Logger } from '../../domain/ports.ts';
import type { MethodRegistry } from '../../methods/registry.ts';
import { CLOSED_TEXT, type LinkService } from '../../services/links/index.ts';
import { linkUrl } from '../../services/links/view.ts';
import { linkQrPng, linkQrSvg } from '../../services/links/qr.ts';
import { loadAssets } from '../checkout/assets.ts';
import { CSP, securityHeaders } from '../checkout/headers.ts';
import type { PeerRequest } from '../client-address.ts';
import { readForm } from '../console/form.ts';
import { HTTP_STATUS } from '../errors.ts';
import { clientKey, type RateLimiter } from '../rate-limit.ts';
import { linkNotFoundPage, linkPage, noticePage, type LinkPageInput } from './page.ts';

export interface LinkPageDeps {
  links: Pick<LinkService, 'page' | 'options' | 'choose'>;
  methods: MethodRegistry;
  /** The payee name the checkout shows. */
  payeeName: string;
  livemode: boolean;
  log: Logger;
  /** Per client IP (server.publicRateLimit), shared with the checkout: every request here takes a token. */
  limiter?: RateLimiter;
  /** Per link (links.rateLimit): every intent a customer asks for takes a token, whoever asks. */
  perLink?: RateLimiter;
  clientAddress: (req: PeerRequest) => string | undefined;
  /** server.publicUrl: what the QR codes carry. */
  publicUrl: string;
}

/** A refused choice as the customer reads it: what to do next, not the API's wording. */
function plainWords(err: PaydError): string {
  switch (err.code) {
    case 'INVALID_REQUEST':
      return `Please check the amount: it ${err.message.replace(/^amount: /, '')}.`;
    case 'CONFLICT':
      return err.message;
    case 'RATE_LIMITED':
    case 'AMOUNT_UNAVAILABLE':
    case 'BUSY':
      return `Many payments are open right now. Please try again in ${err.retryAfter ?? 60} s.`;
    case 'RATE_UNAVAILABLE':
      return 'This way of paying cannot be priced right now. Please choose another, or try again in a minute.';
    case 'AMOUNT_OUT_OF_RANGE':
      return 'This way of paying does not take that amount. Please choose another.';
    case 'METHOD_UNSUPPORTED':
      return 'Please choose one of the ways of paying below.';
    default:
      return 'This payment could not be started. Please try again.';
  }
}

/** The checkout's headers, except that this page's one form may post back to it. */
const headersFor = (type: string) => {
  const headers = securityHeaders(type);
  headers.set('content-security-policy', CSP.replace("form-action 'none'", "form-action 'self'"));
  return headers;
};
const page = (body: string, status = 200, retryAfter?: number) => {
  const headers = headersFor('text/html; charset=utf-8');
  if (retryAfter !== undefined) headers.set('retry-after', String(retryAfter));
  return new Response(body, { status, headers });
};

/** Slugs are base58 (services/links): anything else names no link and reads nothing. */
const SLUG = /^[1-9A-HJ-NP-Za-km-z]{6,16}$/;

/**
 * A payment link's public page (GET /l/:slug), the choice behind it (POST, which creates the intent
 * and sends the customer to its checkout), and its QR code as PNG and SVG. Public by design: every
 * request takes the client's per-IP token, every choice also the link's own.
 */
export function registerLinkPages(app: H3, deps: LinkPageDeps): void {
  const assets = loadAssets();
  const slugOf = (event: H3Event) => event.context.params?.slug ?? '';
  const limited = (event: H3Event): Response | undefined => {
    if (!deps.limiter) return undefined;
    const req = event.runtime?.node?.req;
    const wait = deps.limiter.take(clientKey(req ? deps.clientAddress(req) : undefined));
    return wait === 0 ? undefined : page(tooMany(wait), 429, wait);
  };
  const tooMany = (wait: number) => noticePage(assets.urls, 'Please wait', `Too many requests from your connection. Please wait ${wait} s and try again.`);

  const guard = (handler: (event: H3Event) => Promise<Response>) => async (event: H3Event) => {
    try {
      return limited(event) ?? (await handler(event));
    } catch (err) {
      deps.log.error('link page request failed', { path: event.url.pathname, error: err instanceof Error ? err.stack : String(err) });
      return page(noticePage(assets.urls, 'Sorry', 'Something went wrong on our side. Please try again in a moment.'), 500);
    }
  };

  /** The page: the amount box, or the choice priced at the link's price (or the amount entered). */
  const render = async (slug: string, extra: Pick<LinkPageInput, 'error' | 'amount'> = {}, status = 200, retryAfter?: number) => {
    const shown = SLUG.test(slug) ? await deps.links.page(slug) : undefined;
    if (!shown) return page(linkNotFoundPage(assets.urls), 404);
    const base = { ...shown, payee: deps.payeeName || 'the shop', assets: assets.urls, livemode: deps.livemode, ...extra };
    if (shown.state !== 'active') return page(linkPage({ ...base, closedText: CLOSED_TEXT[shown.state] }), status);
    const entered = shown.link.priceAmount === null;
    if (entered && !extra.amount) return page(linkPage(base), status, retryAfter);
    try {
      const choice = await deps.links.options(shown.link, shown.methods, extra.amount);
      if (choice.options.length === 0) return page(linkPage({ ...base, state: 'inactive', closedText: 'This shop cannot take payments right now. Please try again later.' }), 503);
      return page(linkPage({ ...base, choice }), status, retryAfter);
    } catch (err) {
      if (!(err instanceof PaydError) || err.code !== 'INVALID_REQUEST') throw err;
      return page(linkPage({ ...base, error: plainWords(err) }), 400);
    }
  };

  app.get('/l/:slug', guard(async (event) => render(slugOf(event), { amount: (event.url.searchParams.get('amount') ?? '').trim().slice(0, 40) || undefined })));

  app.post(
    '/l/:slug',
    guard(async (event) => {
      const slug = slugOf(event);
      let form: URLSearchParams;
      try {
        form = await readForm(event);
      } catch {
        return page(noticePage(assets.urls, 'Sorry', 'That form was too large.'), 413);
      }
      // `currency`: the field of the checkout's method choice.
      const method = form.get('currency') ?? '';
      const amount = (form.get('amount') ?? '').trim().slice(0, 40) || undefined;
      if (!SLUG.test(slug)) return page(linkNotFoundPage(assets.urls), 404);
      const wait = deps.perLink?.take(`link:${slug}`) ?? 0;
      if (wait > 0) return render(slug, { error: `Many people are paying with this link right now. Please wait ${wait} s and try again.`, amount }, 429, wait);
      try {
        const created = await deps.links.choose(slug, { method, amount });
        return new Response(null, { status: 303, headers: { ...Object.fromEntries(headersFor('text/plain; charset=utf-8')), location: `/pay/${created.intent_id}` } });
      } catch (err) {
        if (!(err instanceof PaydError) || err.code === 'INTERNAL') throw err;
        if (err.code === 'NOT_FOUND') return page(linkNotFoundPage(assets.urls), 404);
        return render(slug, { error: plainWords(err), amount }, HTTP_STATUS[err.code], err.retryAfter);
      }
    }),
  );

  const qr = (type: 'png' | 'svg') =>
    guard(async (event) => {
      const slug = slugOf(event);
      const shown = SLUG.test(slug) ? await deps.links.page(slug) : undefined;
      if (!shown) return page(linkNotFoundPage(assets.urls), 404);
      const url = linkUrl(deps.publicUrl, slug);
      const headers = headersFor(type === 'png' ? 'image/png' : 'image/svg+xml');
      headers.set('content-disposition', `inline; filename="payd-link-${slug}.${type}"`);
      return new Response(type === 'png' ? new Uint8Array(await linkQrPng(url)) : await linkQrSvg(url), { headers });
    });
  app.get('/l/:slug/qr.png', qr('png'));
  app.get('/l/:slug/qr.svg', qr('svg'));
}
