/** No inline script or style anywhere: the page's JS and CSS come from /pay/assets. */
export const CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self' ws: wss:",
  "frame-ancestors 'none'",
  "base-uri 'none'",
  // The open intent's choice of method is a plain form posting to the checkout's own route.
  "form-action 'self'",
].join('; ');

/** Every checkout response is public but per-intent and live: never cached, never framed, no referrer leak. */
export function securityHeaders(contentType: string): Headers {
  return new Headers({
    'content-type': contentType,
    'content-security-policy': CSP,
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'no-referrer',
    'cache-control': 'no-store',
    'x-frame-options': 'DENY',
  });
}

export const htmlResponse = (body: string, status = 200) => new Response(body, { status, headers: securityHeaders('text/html; charset=utf-8') });

export const jsonResponse = (body: unknown, status = 200) => new Response(JSON.stringify(body), { status, headers: securityHeaders('application/json; charset=utf-8') });
