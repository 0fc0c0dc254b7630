/** The session cookie: its token is the only credential; the server keeps the rest. */
export const SESSION_COOKIE = 'payd_console';

/** Reads one cookie from a Cookie header. */
export function readCookie(header: string | undefined, name: string): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

/**
 * HttpOnly (scripts never see it), SameSite=Strict (no cross-site request carries it), Path
 * /console (the API never receives it); Secure when the browser reached us over HTTPS.
 * No Max-Age: the server ends idle sessions, the browser forgets it when closed.
 */
export function sessionCookie(token: string, secure: boolean): string {
  return `${SESSION_COOKIE}=${token}; Path=/console; HttpOnly; SameSite=Strict${secure ? '; Secure' : ''}`;
}

export function clearedCookie(secure: boolean): string {
  return `${SESSION_COOKIE}=; Path=/console; HttpOnly; SameSite=Strict; Max-Age=0${secure ? '; Secure' : ''}`;
}
