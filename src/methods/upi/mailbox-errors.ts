import { PaydError } from '../../domain/errors.ts';

/** Turns an imapflow / socket failure into one line an operator can act on (`payd doctor`, logs). */
export function describeImapFailure(err: unknown, where: { host: string; port: number; user: string; mailbox: string }): string {
  // Sign-in failures (OAuth token endpoint, refused login) come already worded for the operator.
  if (err instanceof PaydError) return err.message;
  const e = (err ?? {}) as Record<string, unknown> & { message?: string };
  const code = typeof e.code === 'string' ? e.code : undefined;
  const server = `${where.host}:${where.port}`;
  if (e.authenticationFailed) return `IMAP login failed for ${where.user} at ${server}: authentication failed (check imap.user / imap.password)`;
  // imapflow reports a missing mailbox as code NotFound, or only via the server's response code.
  if (e.mailboxMissing || code === 'NotFound' || e.serverResponseCode === 'NONEXISTENT' || e.serverResponseCode === 'TRYCREATE')
    return `mailbox "${where.mailbox}" does not exist on ${server} (check imap.mailbox)`;
  switch (code) {
    case 'ECONNREFUSED':
      return `cannot connect to IMAP server ${server}: connection refused`;
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return `cannot resolve IMAP host ${where.host} (${code})`;
    case 'ETIMEDOUT':
    case 'CONNECT_TIMEOUT':
    case 'GREETING_TIMEOUT':
      return `IMAP server ${server} did not answer in time (${code})`;
    case 'NoConnection':
    case 'ECONNRESET':
    case 'EPIPE':
      return `IMAP connection to ${server} was closed (${code})`;
  }
  const tls = e.tlsFailed ? ' (TLS failed: check imap.secure / imap.port)' : '';
  const text = typeof e.responseText === 'string' && e.responseText ? e.responseText : (e.message ?? String(err));
  return `IMAP error at ${server}${tls}: ${code ? code + ' ' : ''}${text}`;
}
