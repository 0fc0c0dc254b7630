import * as v from 'valibot';
import { isTimeZone } from '../domain/shop-time.ts';
import { httpUrl, num, port, SecretRef } from './parts.ts';

/** A plain e-mail address. */
const isEmail = (s: string): boolean => /^[^\s@<>(),;:"]+@[^\s@<>(),;:"]+\.[^\s@<>(),;:"]+$/.test(s);


/** What a channel may say; each channel lists the kinds it sends, default all. */
export const NOTIFICATION_KINDS = ['payment.settled', 'payment.held', 'payment.unmatched', 'source.down', 'upi.silent', 'webhook.failing', 'alerts.unreadable'] as const;
const notificationChannel = {
  events: v.optional(v.array(v.picklist(NOTIFICATION_KINDS, `expected one of ${NOTIFICATION_KINDS.join(', ')}`)), [...NOTIFICATION_KINDS]),
  /** Instead of one message per settled payment, one summary every this many minutes. */
  digestMinutes: v.optional(v.pipe(num(), v.finite(), v.gtValue(0, 'must be greater than 0'))),
};
const chatId = v.pipe(
  v.union([v.pipe(num(), v.integer('expected an integer')), v.pipe(v.string(), v.regex(/^-?\d{1,20}$/, 'expected a numeric chat id'))], 'expected a numeric chat id'),
  v.transform((id) => String(id)),
);

/** A person's Telegram user id (a positive number; a chat id may be a group's negative one). */
const userId = v.pipe(
  v.union([v.pipe(num(), v.integer('expected an integer'), v.minValue(1, 'expected a Telegram user id')), v.pipe(v.string(), v.regex(/^\d{1,20}$/, 'expected a numeric Telegram user id'))], 'expected a numeric Telegram user id'),
  v.transform((id) => String(id)),
);

/** `notifications` (docs/notifications.md): Telegram and e-mail to the shopkeeper, and the bot. */
export const NotificationsConfig = v.strictObject({
  telegram: v.optional(
    v.strictObject({
      botToken: SecretRef,
      /** Chats that receive messages, and the only ones whose commands the bot obeys. */
      chatIds: v.pipe(v.array(chatId), v.minLength(1, 'list at least one chat id')),
      apiUrl: v.optional(httpUrl, 'https://api.telegram.org'),
      /**
       * Telegram user ids that may press Accept / Refunded (in a configured chat that is not a channel).
       * Empty (the default): nobody acts; the reading commands still answer.
       */
      actors: v.optional(v.array(userId), []),
      /** Answer /today, /held, /intent, /status and the Accept / Refunded buttons (long polling; leader only). */
      commands: v.optional(v.boolean('expected a boolean'), true),
      ...notificationChannel,
    }),
  ),
  email: v.optional(
    v.strictObject({
      host: v.pipe(v.string(), v.minLength(1, 'must not be empty')),
      port: v.optional(port, 587),
      /** TLS from the first byte (port 465). */
      secure: v.optional(v.boolean('expected a boolean')),
      /** Without `secure`: require STARTTLS (default). false: plain SMTP, for a relay on this host only. */
      starttls: v.optional(v.boolean('expected a boolean'), true),
      user: v.optional(v.pipe(v.string(), v.minLength(1))),
      password: v.optional(SecretRef),
      from: v.pipe(v.string(), v.check(isEmail, 'expected an e-mail address')),
      to: v.pipe(v.array(v.pipe(v.string(), v.check(isEmail, 'expected an e-mail address'))), v.minLength(1, 'list at least one address')),
      ...notificationChannel,
    }),
  ),
  /**
   * Unmatched payments worth a message each: a payment below `below[method]` (a decimal in the
   * method's unit: dust, cheap to send by the thousand), or beyond `burst` told in one period, is
   * only counted; each period with any ends in one summary message.
   */
  unmatched: v.optional(
    v.strictObject({
      below: v.optional(v.record(v.string(), v.pipe(v.string('expected a decimal amount as a string, like "0.001"'), v.regex(/^\d{1,30}(\.\d{1,30})?$/, 'expected a decimal amount as a string, like "0.001"'))), {}),
      burst: v.optional(v.pipe(num(), v.integer('expected an integer'), v.minValue(0, 'must not be negative')), 5),
      periodMinutes: v.optional(v.pipe(num(), v.finite(), v.gtValue(0, 'must be greater than 0')), 60),
    }),
    {},
  ),
  /** The shop's IANA time zone, /today counting from its midnight (the same setting as server.console.timeZone; default the machine's zone). */
  timeZone: v.optional(v.pipe(v.string(), v.check(isTimeZone, 'expected an IANA time zone like Asia/Kolkata'))),
});

export type NotificationsSettings = v.InferOutput<typeof NotificationsConfig>;
