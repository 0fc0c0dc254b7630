/**
 * Delivers queued notifications, one at a time, off the settlement path: a slow or dead
 * Telegram or SMTP server delays only other notifications. Telegram's 429 `retry_after` pauses
 * every Telegram send until then; other failures back off per message, then give up.
 */
import type { NotificationsTable } from '../../db/schema.ts';
import type { Clock, Logger, Random } from '../../domain/ports.ts';
import { EmailError, type EmailSender } from './email.ts';
import type { NotificationQueue } from './queue.ts';
import { TelegramError, type InlineKeyboard, type TelegramApi } from './telegram-api.ts';

/** Waits after failure k (s): about a day in all, then the message is `failed`. */
export const RETRY_SCHEDULE_S = [5, 30, 120, 600, 1800, 3600, 3600, 7200, 14400, 28800, 43200];

export interface SendOutcome {
  sent: boolean;
}

export function createNotificationSender(deps: { queue: NotificationQueue; clock: Clock; random: Random; log: Logger; telegram?: TelegramApi; email?: { sender: EmailSender; to: string[] } }) {
  let telegramPausedUntil = 0;

  async function deliver(n: NotificationsTable): Promise<void> {
    if (n.channel === 'telegram') {
      if (!deps.telegram) throw new TelegramError('Telegram is no longer configured', null, undefined, true);
      await deps.telegram.sendMessage(n.target, n.text, n.buttons_json ? (JSON.parse(n.buttons_json) as InlineKeyboard) : null);
      return;
    }
    if (!deps.email) throw new EmailError('e-mail is no longer configured', true);
    // The first line is the subject: the message says it all in a line.
    const subject = `payd: ${n.text.split('\n')[0]!.slice(0, 120)}`;
    await deps.email.sender.send(n.target.split(','), subject, n.text);
  }

  async function one(n: NotificationsTable): Promise<void> {
    const now = deps.clock.now();
    if (n.channel === 'telegram' && telegramPausedUntil > now) {
      await deps.queue.postpone(n.id, { at: telegramPausedUntil, attempts: n.attempts, error: n.last_error ?? 'Telegram asked to wait' });
      return;
    }
    const attempts = n.attempts + 1;
    try {
      await deliver(n);
      await deps.queue.sent(n.id, attempts);
      deps.log.info('notification sent', { id: n.id, channel: n.channel, kind: n.kind, attempts });
    } catch (err) {
      const error = (err as Error).message ?? String(err);
      const retryAfterMs = err instanceof TelegramError ? err.retryAfterMs : undefined;
      const permanent = (err instanceof TelegramError || err instanceof EmailError) && err.permanent;
      if (retryAfterMs !== undefined) {
        // Telegram's flood control: wait as told, for every chat (the limit is the bot's), and count no failure.
        telegramPausedUntil = Math.max(telegramPausedUntil, deps.clock.now() + retryAfterMs);
        await deps.queue.postpone(n.id, { at: telegramPausedUntil, attempts: n.attempts, error });
        deps.log.warn('Telegram asked payd to slow down', { retry_after_ms: retryAfterMs });
      } else if (permanent || attempts > RETRY_SCHEDULE_S.length) {
        await deps.queue.failed(n.id, { attempts, error });
        deps.log.error('notification given up', { id: n.id, channel: n.channel, kind: n.kind, attempts, error });
      } else {
        const waitMs = RETRY_SCHEDULE_S[attempts - 1]! * 1000 * (0.8 + 0.4 * deps.random.float());
        await deps.queue.postpone(n.id, { at: deps.clock.now() + waitMs, attempts, error });
        deps.log.warn('notification not delivered; will retry', { id: n.id, channel: n.channel, kind: n.kind, attempts, retry_in_ms: Math.round(waitMs), error });
      }
    }
  }

  return {
    /** Sends what is due; resolves when none is left (or the signal aborted). */
    async tick(signal: AbortSignal): Promise<void> {
      for (let round = 0; round < 50 && !signal.aborted; round++) {
        const batch = await deps.queue.claim(10);
        if (batch.length === 0) return;
        for (const n of batch) {
          if (signal.aborted) return;
          await one(n);
        }
      }
    },
  };
}

export type NotificationSender = ReturnType<typeof createNotificationSender>;
