import type { EventHandler, H3Event } from 'h3';
import type { Awaitable } from '../../domain/awaitable.ts';
import type { Merchant } from '../../services/merchants/index.ts';
import type { JsonReply } from '../errors.ts';

/** What a route learns before its handler runs: the merchant, when the route needs credentials. */
export interface RouteContext {
  merchant?: Merchant;
}

/** A route's own work; it may answer synchronously (the fetch on SQLite does). */
export type RouteHandler = (event: H3Event, ctx: RouteContext) => Awaitable<JsonReply>;

/** What http/app.ts hands each resource's route file: its request wrapper (auth, rate limit, errors, log). */
export interface RouteKit {
  route: (handler: RouteHandler, opts: { auth: boolean }) => EventHandler;
  notAllowed: (allow: string) => EventHandler;
}
