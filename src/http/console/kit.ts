import type { H3Event } from 'h3';
import type { ConsoleSession } from '../../services/console-access.ts';
import type { Shell } from './layout.ts';

// What the console's route files register through: kept apart from routes.ts, which imports them.
/** What a signed-in handler gets. */
export interface Signed {
  event: H3Event;
  session: ConsoleSession;
  shell: Shell;
  /** The actor the audit log records: `console:<passkey name>`. */
  actor: `console:${string}`;
}

export type SignedHandler = (s: Signed) => Promise<Response>;

export interface ConsoleKit {
  get(path: string, handler: SignedHandler): void;
  /** A change: form body read, its CSRF token checked against the session's, then the handler. */
  post(path: string, handler: (s: Signed, form: URLSearchParams) => Promise<Response>): void;
}
