import type { EventHandler, H3Event } from 'h3';
import type { Merchant } from '../../services/merchants.ts';
import type { JsonReply } from '../errors.ts';

/** What http/app.ts hands each route file: its request wrapper (auth, rate limit, errors, log). */
export interface RouteKit {
  route: (handler: (event: H3Event, ctx: { merchant?: Merchant }) => Promise<JsonReply>, opts: { auth: boolean }) => EventHandler;
  notAllowed: (allow: string) => EventHandler;
}
