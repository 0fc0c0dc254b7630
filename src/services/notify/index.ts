/**
 * Notifications built from `notifications.*` (null when neither channel is configured): the
 * queue, the feed that fills it, the sender and the Telegram bot. Nothing connects until the
 * worker leader runs them (workers/notify.ts).
 */
import type { Config } from '../../config/read.ts';
import type { Db } from '../../db/open.ts';
import type { HeldPayments } from '../../domain/notify/held-port.ts';
import type { ShowAmount } from '../../domain/notify/text.ts';
import type { Clock, Logger, Random } from '../../domain/ports.ts';
import type { MethodSilence } from '../../methods/method.ts';
import { createTelegramBot, type BotLinks } from './bot.ts';
import { createEmailSender } from './email.ts';
import { createNotificationFeed, type ChannelPlan, type UnmatchedPlan } from './feed.ts';
import { createObservations, type WatchedSource } from './observe.ts';
import { createNotificationQueue } from './queue.ts';
import { createNotificationSender } from './sender.ts';
import { createTelegramApi } from './telegram-api.ts';

export interface NotificationDeps {
  config: Config;
  db: Db;
  clock: Clock;
  random: Random;
  log: Logger;
  silences: readonly MethodSilence[];
  /** The sources running in this process (the leader's); read at each feed run. */
  sources: () => WatchedSource[];
  held?: HeldPayments;
  /** Payment links for the bot's /link. */
  links?: BotLinks;
  /** The checkout's amount text. */
  show: ShowAmount;
  /** notifications.unmatched in minor units. */
  unmatched: UnmatchedPlan;
  /** Test seam: the Bot API's fetch. */
  fetch?: typeof fetch;
}

export function createNotifications(deps: NotificationDeps) {
  const n = deps.config.notifications;
  if (!n || (!n.telegram && !n.email)) return null;
  const queue = createNotificationQueue(deps);
  const channels: ChannelPlan[] = [];
  if (n.telegram) channels.push({ channel: 'telegram', targets: n.telegram.chatIds, kinds: new Set(n.telegram.events), digestMinutes: n.telegram.digestMinutes, heldButtons: n.telegram.commands && deps.held !== undefined });
  if (n.email) channels.push({ channel: 'email', targets: [n.email.to.join(',')], kinds: new Set(n.email.events), digestMinutes: n.email.digestMinutes });
  const telegram = n.telegram ? createTelegramApi({ apiUrl: n.telegram.apiUrl, token: n.telegram.botToken, fetch: deps.fetch }) : undefined;
  const email = n.email ? createEmailSender(n.email) : undefined;
  const observe = createObservations({ db: deps.db, clock: deps.clock, sources: deps.sources, silences: deps.silences });
  const feed = createNotificationFeed({ db: deps.db, clock: deps.clock, random: deps.random, log: deps.log, show: deps.show, queue, channels, observe, unmatched: deps.unmatched });
  const sender = createNotificationSender({ queue, clock: deps.clock, random: deps.random, log: deps.log, telegram, email: email && n.email ? { sender: email, to: n.email.to } : undefined });

  async function status(): Promise<string> {
    const lines = deps.sources().map((s) => {
      const st = s.status();
      return `${s.key}: ${st.state}${st.lag_seconds !== undefined ? `, ${Math.round(st.lag_seconds)} s behind` : ''}`;
    });
    for (const watch of deps.silences) if (watch.expectMs !== undefined) lines.push(`${watch.method} alerts: ${(await watch.status()).silent ? 'SILENT' : 'arriving'}`);
    const pending = await deps.db.selectFrom('events').select((eb) => eb.fn.countAll<string>().as('n')).where('status', '=', 'pending').executeTakeFirst();
    lines.push(`webhooks waiting: ${pending?.n ?? 0}`);
    return lines.join('\n') || 'No sources running.';
  }

  const bot = telegram && n.telegram!.commands ? createTelegramBot({ db: deps.db, api: telegram, queue, chatIds: n.telegram!.chatIds, actors: n.telegram!.actors, clock: deps.clock, random: deps.random, log: deps.log, timeZone: deps.config.shopTimeZone, show: deps.show, status, held: deps.held, links: deps.links }) : undefined;
  return { queue, feed, sender, bot, close: () => email?.close() };
}

export type Notifications = NonNullable<ReturnType<typeof createNotifications>>;
