/**
 * No inline script or style, nothing from another origin; forms post only to the console
 * itself. Responses are never cached (the pages show money and, once, a merchant's secret).
 */
export const CONSOLE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self'",
  "connect-src 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
].join('; ');

export function consoleHeaders(contentType: string): Headers {
  return new Headers({
    'content-type': contentType,
    'content-security-policy': CONSOLE_CSP,
    'x-content-type-options': 'nosniff',
    // same-origin, not no-referrer: under no-referrer a form's POST says "Origin: null", and
    // the console refuses changes whose Origin is not its own. Other sites still get nothing.
    'referrer-policy': 'same-origin',
    'cache-control': 'no-store',
    'x-frame-options': 'DENY',
    'cross-origin-opener-policy': 'same-origin',
  });
}

export function htmlPage(body: string, status = 200, extra: Record<string, string> = {}): Response {
  const headers = consoleHeaders('text/html; charset=utf-8');
  for (const [k, v] of Object.entries(extra)) headers.append(k, v);
  return new Response(body, { status, headers });
}

export function jsonAnswer(body: unknown, status = 200, extra: Record<string, string> = {}): Response {
  const headers = consoleHeaders('application/json; charset=utf-8');
  for (const [k, v] of Object.entries(extra)) headers.append(k, v);
  return new Response(JSON.stringify(body), { status, headers });
}

/** After a change: Post/Redirect/Get, so a reload never repeats it. */
export function seeOther(location: string, extra: Record<string, string> = {}): Response {
  const headers = consoleHeaders('text/plain; charset=utf-8');
  headers.set('location', location);
  for (const [k, v] of Object.entries(extra)) headers.append(k, v);
  return new Response(null, { status: 303, headers });
}
