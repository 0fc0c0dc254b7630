import type { H3, H3Event } from 'h3';
import { PaydError } from '../../domain/errors.ts';
import type { Clock, Logger } from '../../domain/ports.ts';
import type { ConsoleAccess, RelyingParty } from '../../services/console-access.ts';
import { html } from '../checkout/escape.ts';
import type { PeerRequest } from '../client-address.ts';
import { HTTP_STATUS } from '../errors.ts';
import { header } from '../headers.ts';
import { clientKey, type RateLimiter } from '../rate-limit.ts';
import { loadConsoleAssets } from './assets.ts';
import { clearedCookie, readCookie, SESSION_COOKIE, sessionCookie } from './cookies.ts';
import { htmlPage, jsonAnswer, seeOther } from './headers.ts';
import { page, type Shell } from './layout.ts';
import { actionRoutes, type ActionDeps } from './actions.ts';
import { readForm } from './form.ts';
import { inviteBody, signInBody } from './pages/sign-in.ts';
import { viewRoutes, type ViewDeps } from './views.ts';
import type { ConsoleKit, Signed } from './kit.ts';

export interface ConsoleDeps extends ViewDeps, ActionDeps {
  access: ConsoleAccess;
  clock: Clock;
  log: Logger;
  livemode: boolean;
  /** The address the operator's browser shows (known once the server listens). */
  origin: () => string;
  /** Did the browser reach us over HTTPS (directly, or per a trusted proxy's X-Forwarded-Proto)? */
  secure: (req: PeerRequest) => boolean;
  clientAddress: (req: PeerRequest) => string | undefined;
  /** Per client IP, for every request not carrying a live session (server.publicRateLimit). */
  limiter: RateLimiter;
}

export type { ConsoleKit, Signed, SignedHandler } from './kit.ts';

/**
 * The operator console under /console: server-rendered pages over the services
 * the CLI uses; passkey sign-in; server-side sessions. Every response carries its own strict
 * headers (no inline code, never cached, never framed); the API's JSON wrapper never sees it.
 */
export function registerConsole(app: H3, deps: ConsoleDeps): void {
  const assets = loadConsoleAssets();
  const node = (event: H3Event) => event.runtime?.node?.req;
  const rp = (): RelyingParty => {
    const origin = deps.origin();
    return { id: new URL(origin).hostname, origin, name: 'payd console' };
  };
  const address = (event: H3Event) => {
    const req = node(event);
    return (req ? deps.clientAddress(req) : undefined) ?? null;
  };
  const secure = (event: H3Event) => {
    const req = node(event);
    return req ? deps.secure(req) : false;
  };
  const anonymousShell: Shell = { assets, livemode: deps.livemode, who: null };

  /** Anonymous traffic spends the client's per-IP bucket. */
  const throttle = (event: H3Event): Response | null => {
    const wait = deps.limiter.take(clientKey(address(event) ?? undefined));
    return wait > 0 ? htmlPage(page(anonymousShell, { title: 'Slow down', section: null, body: html`<p>Too many requests from this address; wait ${wait} s.</p>` }), 429, { 'retry-after': String(wait) }) : null;
  };

  /** A request that changes something must come from the console's own pages (no other origin). */
  const sameOrigin = (event: H3Event): boolean => {
    const origin = header(event, 'origin');
    return origin === undefined || origin === deps.origin();
  };

  /**
   * A passkey is bound to the console's host name: opened at another address (127.0.0.1 for
   * localhost, a LAN address), the browser refuses the ceremony. Say which address works instead.
   */
  const elsewhere = (event: H3Event): Response | null => {
    const origin = new URL(deps.origin());
    const host = header(event, 'host');
    // Ports do not matter to a passkey (a proxy's Host may omit its port), the host name does.
    if (host === undefined || URL.canParse(`http://${host}`) && new URL(`http://${host}`).hostname === origin.hostname) return null;
    const there = `${origin.origin}${event.url.pathname}`;
    return htmlPage(
      page(anonymousShell, { title: 'Open the console at its own address', section: null, body: html`<p class="error" role="alert">Passkeys for this console belong to ${origin.host}, so this browser cannot use one at ${host}.</p><p>Open <a id="console-address" href="${there}">${there}</a> instead.</p>` }),
      421,
    );
  };

  const problem = (shell: Shell, status: number, title: string, message: string) =>
    htmlPage(page(shell, { title, section: null, body: html`<p class="error" role="alert">${message}</p><p><a href="/console">Back to Today</a></p>` }), status);

  /** Every failure: a PaydError's message (an operator's own action), anything else logged and hidden. */
  const failure = (event: H3Event, shell: Shell, err: unknown): Response => {
    if (err instanceof PaydError) return problem(shell, HTTP_STATUS[err.code], 'Not done', err.message);
    deps.log.error('console request failed', { path: event.url.pathname, error: err instanceof Error ? err.stack : String(err) });
    return problem(shell, 500, 'Something went wrong', 'The console could not answer; the error is in payd’s log.');
  };

  async function signedIn(event: H3Event): Promise<Signed | null> {
    const session = await deps.access.session(readCookie(header(event, 'cookie'), SESSION_COOKIE));
    if (!session) return null;
    return { event, session, shell: { assets, livemode: deps.livemode, who: { name: session.name, csrf: session.csrf } }, actor: `console:${session.name}` };
  }

  const kit: ConsoleKit = {
    get(path, handler) {
      app.get(path, async (event) => {
        let s: Signed | null = null;
        try {
          s = await signedIn(event);
          if (!s) return throttle(event) ?? seeOther('/console/sign-in');
          return await handler(s);
        } catch (err) {
          return failure(event, s?.shell ?? anonymousShell, err);
        }
      });
    },
    post(path, handler) {
      app.post(path, async (event) => {
        let s: Signed | null = null;
        try {
          s = await signedIn(event);
          if (!s) return throttle(event) ?? problem(anonymousShell, 403, 'Signed out', 'Your session ended (signed out, revoked or idle): sign in again.');
          if (!sameOrigin(event)) return problem(s.shell, 403, 'Refused', 'This request came from another site.');
          const form = await readForm(event);
          if (!deps.access.csrfMatches(s.session, form.get('csrf'))) return problem(s.shell, 403, 'Refused', 'The form’s security token is missing or stale: reload the page and try again.');
          return await handler(s, form);
        } catch (err) {
          return failure(event, s?.shell ?? anonymousShell, err);
        }
      });
    },
  };

  app.get('/console/assets/:name', (event) => assets.serve(event.context.params?.name ?? '') ?? new Response('not found', { status: 404 }));

  // Sign-in and invite pages, and the passkey ceremonies behind their buttons (console.js).
  app.get('/console/sign-in', async (event) => {
    const limited = throttle(event);
    if (limited) return limited;
    if (await signedIn(event)) return seeOther('/console');
    const moved = elsewhere(event);
    if (moved) return moved;
    return htmlPage(page(anonymousShell, { title: 'Sign in', section: null, body: signInBody(deps.livemode) }));
  });
  app.get('/console/invite/:token', async (event) => {
    const limited = throttle(event);
    if (limited) return limited;
    const moved = elsewhere(event);
    if (moved) return moved;
    try {
      const token = event.context.params?.token ?? '';
      const name = await deps.access.inviteName(token);
      return htmlPage(page(anonymousShell, { title: 'Add this device', section: null, body: inviteBody(name, token) }));
    } catch (err) {
      return failure(event, anonymousShell, err);
    }
  });

  /** The JSON endpoints of the ceremonies: same origin only, per-IP limited; a session cookie on success. */
  const ceremony = (path: string, fn: (body: Record<string, unknown>, event: H3Event) => Promise<Response>) =>
    app.post(path, async (event) => {
      const limited = throttle(event);
      if (limited) return jsonAnswer({ error: 'too many requests' }, 429);
      if (!sameOrigin(event) || !(header(event, 'content-type') ?? '').startsWith('application/json')) return jsonAnswer({ error: 'refused' }, 403);
      // A passkey response is a few KiB; a declared larger body is refused before it is read.
      if (Number(header(event, 'content-length') ?? 0) > 64 * 1024) return jsonAnswer({ error: 'too large' }, 413);
      try {
        const text = await event.req.text();
        if (text.length > 64 * 1024) return jsonAnswer({ error: 'too large' }, 413);
        const body = JSON.parse(text) as unknown;
        if (typeof body !== 'object' || body === null) return jsonAnswer({ error: 'expected a JSON object' }, 400);
        return await fn(body as Record<string, unknown>, event);
      } catch (err) {
        if (err instanceof PaydError) return jsonAnswer({ error: err.message }, HTTP_STATUS[err.code]);
        if (err instanceof SyntaxError) return jsonAnswer({ error: 'not JSON' }, 400);
        deps.log.error('console sign-in failed', { path, error: err instanceof Error ? err.stack : String(err) });
        return jsonAnswer({ error: 'internal error' }, 500);
      }
    });
  const str = (v: unknown) => (typeof v === 'string' ? v : '');
  const signedCookie = (event: H3Event, token: string) => ({ 'set-cookie': sessionCookie(token, secure(event)) });

  ceremony('/console/webauthn/register/options', async (body) => jsonAnswer(await deps.access.registrationOptions(str(body.token), rp())));
  ceremony('/console/webauthn/register', async (body, event) => {
    const s = await deps.access.register(str(body.token), body.response as never, rp(), address(event));
    return jsonAnswer({ ok: true, next: '/console' }, 200, signedCookie(event, s.token));
  });
  ceremony('/console/webauthn/login/options', async () => jsonAnswer(await deps.access.loginOptions(rp())));
  ceremony('/console/webauthn/login', async (body, event) => {
    const s = await deps.access.login(body.response as never, rp(), address(event));
    return jsonAnswer({ ok: true, next: '/console' }, 200, signedCookie(event, s.token));
  });

  kit.post('/console/sign-out', async (s) => {
    await deps.access.signOut(s.session);
    return seeOther('/console/sign-in', { 'set-cookie': clearedCookie(secure(s.event)) });
  });

  viewRoutes(kit, deps);
  actionRoutes(kit, deps);

  app.all('/console/**', async (event) => problem(anonymousShell, 404, 'Not found', `Nothing at ${event.url.pathname}.`));
}
