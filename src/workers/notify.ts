import type { Logger, Random, Wakeups } from '../domain/ports.ts';
import type { Notifications } from '../services/notify/index.ts';
import { runLoop } from '../runtime/loop.ts';
import { WakeSignal } from '../runtime/wake.ts';

/** How often the feed looks for news and the sender for due messages, ms. */
export const NOTIFY_FEED_MS = 1_000;
const SEND_IDLE_MS = 1_000;
/** Sent and failed messages are kept this long (their dedup keys with them), ms. */
const KEEP_MS = 30 * 86_400_000;

/**
 * The worker leader's notification loops: feed, sender and the bot's long poll, each its own
 * loop, so none waits for another and none waits for settlement or webhooks.
 */
export async function runNotifications(notifications: Notifications, options: { signal: AbortSignal; log: Logger; random: Random; wakeups?: Wakeups }): Promise<void> {
  await notifications.queue.releaseClaims();
  // An event written by any process on this database (a settlement) wakes the feed at once.
  const news = new WakeSignal();
  const unsubscribe = options.wakeups?.subscribe(() => news.wake());
  let pruned = 0;
  const sendNow = new WakeSignal();
  const work = [
    runLoop({
      name: 'notification feed',
      intervalMs: NOTIFY_FEED_MS,
      wake: news,
      signal: options.signal,
      log: options.log,
      random: options.random,
      tick: async () => {
        await notifications.feed.tick();
        sendNow.wake();
        if (Date.now() - pruned > 3_600_000) {
          pruned = Date.now();
          await notifications.queue.prune(KEEP_MS);
        }
      },
    }),
    runLoop({ name: 'notification sender', intervalMs: SEND_IDLE_MS, signal: options.signal, log: options.log, random: options.random, wake: sendNow, tick: (signal) => notifications.sender.tick(signal) }),
  ];
  if (notifications.bot) {
    const bot = notifications.bot;
    // The long poll is the wait; a failing API backs off (1 s doubling to a minute).
    work.push(runLoop({ name: 'telegram bot', intervalMs: 0, signal: options.signal, log: options.log, random: options.random, tick: (signal) => bot.poll(signal) }));
  }
  try {
    await Promise.all(work);
  } finally {
    unsubscribe?.();
  }
}
