/**
 * The notification setup checked from end to end, in an operator's words: `payd doctor` asks
 * each channel whether it would work (the token file, Telegram's getMe and each chat, the SMTP
 * login) without sending anything; `payd notify test` sends one test message through each.
 * Both use the same clients the sender uses, so what passes here is what the daemon can send.
 */
import type { Config } from '../../config/read.ts';
import { networkWords } from '../../domain/errors.ts';
import { createEmailSender } from './email.ts';
import { createTelegramApi, TelegramError } from './telegram-api.ts';

export interface ChannelLine {
  ok: boolean;
  /** The channel and target: "telegram bot", "telegram chat 1001", "email owner@shop.example". */
  what: string;
  message: string;
}

export const TEST_MESSAGE = 'payd test message: notifications reach you here. Nothing was paid; no action is needed.';

/** A Telegram refusal in words: what is wrong and what to change. */
function telegramWords(err: unknown, chat?: string): string {
  if (!(err instanceof TelegramError)) return `failed: ${(err as Error).message}`;
  const said = err.message.replace(/^Telegram \w+: /, '');
  if (err.status === null) return `Telegram could not be reached: ${networkWords(said) ?? said}. Check this machine's internet access (or notifications.telegram.apiUrl)`;
  if (err.status === 401 || (err.status === 404 && chat === undefined)) return `Telegram rejected the bot token (${said}): put the token BotFather gave (123456789:AA…) in notifications.telegram.botToken`;
  if (chat !== undefined && err.status === 400 && /chat not found/i.test(said))
    return `chat ${chat} not found (${said}): the bot can write only where someone has written to it first. Open a chat with the bot and send it any message (for a group: add the bot to it), and check the id in notifications.telegram.chatIds`;
  if (chat !== undefined && err.status === 403) return `the bot may not write in chat ${chat} (${said}): it was blocked or removed there; unblock it or add it back`;
  if (err.retryAfterMs !== undefined) return `Telegram asked to wait ${Math.ceil(err.retryAfterMs / 1000)} s (${said}); try again then`;
  return `Telegram refused (${said})`;
}

/** An SMTP failure in words (nodemailer's codes: EAUTH a refused login, ESOCKET/ECONNECTION/EDNS no connection). */
function smtpWords(err: unknown, e: { host: string; port: number; user?: string }): string {
  const x = err as { code?: string; response?: string; message?: string };
  const said = (x.response ?? x.message ?? String(err)).replace(/^SMTP: /, '').slice(0, 160);
  if (x.code === 'EAUTH') return `the SMTP server ${e.host} refused the login${e.user ? ` of ${e.user}` : ''} (${said}): check notifications.email.user and password`;
  const net = networkWords(said);
  if (net) return `cannot reach the SMTP server ${e.host}:${e.port}: ${net}. Check notifications.email.host and port`;
  if (x.code === 'ETLS' || /STARTTLS/i.test(said)) return `the SMTP server ${e.host}:${e.port} offers no TLS as configured (${said}): check notifications.email.secure / starttls`;
  if (x.code === 'EENVELOPE') return `the SMTP server refused the sender or a recipient (${said}): check notifications.email.from and to`;
  return `SMTP failed (${said})`;
}

/** Reads a secret now; a missing file or variable is a line that says which, not a crash later. */
function readable(secret: { reveal(): string } | undefined, what: string): ChannelLine | null {
  try {
    secret?.reveal();
    return null;
  } catch (err) {
    return { ok: false, what, message: `${(err as Error).message.split('\n')[0]} (payd serve would refuse to start)` };
  }
}

export function createNotificationCheck(config: Config['notifications'], deps: { fetch?: typeof fetch; timeoutMs?: number } = {}) {
  async function telegram(send: boolean): Promise<ChannelLine[]> {
    const t = config!.telegram!;
    const unreadable = readable(t.botToken, 'telegram token');
    if (unreadable) return [unreadable];
    const api = createTelegramApi({ apiUrl: t.apiUrl, token: t.botToken, fetch: deps.fetch, timeoutMs: deps.timeoutMs });
    const lines: ChannelLine[] = [];
    try {
      const me = await api.getMe();
      lines.push({ ok: true, what: 'telegram bot', message: `token accepted: @${me.username ?? me.first_name ?? me.id}` });
    } catch (err) {
      return [{ ok: false, what: 'telegram bot', message: telegramWords(err) }];
    }
    for (const chat of t.chatIds) {
      try {
        if (send) await api.sendMessage(chat, TEST_MESSAGE);
        else await api.getChat(chat);
        lines.push({ ok: true, what: `telegram chat ${chat}`, message: send ? 'test message sent' : 'reachable' });
      } catch (err) {
        lines.push({ ok: false, what: `telegram chat ${chat}`, message: telegramWords(err, chat) });
      }
    }
    return lines;
  }

  async function email(send: boolean): Promise<ChannelLine[]> {
    const e = config!.email!;
    const what = `email ${e.to.join(', ')}`;
    const unreadable = readable(e.password, 'email password');
    if (unreadable) return [unreadable];
    const sender = createEmailSender(e);
    try {
      if (send) await sender.send(e.to, 'payd: test message', TEST_MESSAGE);
      else await sender.verify();
      return [{ ok: true, what, message: send ? `test message accepted by ${e.host}:${e.port}` : `${e.host}:${e.port} accepts the login` }];
    } catch (err) {
      return [{ ok: false, what, message: smtpWords(err, e) }];
    } finally {
      sender.close();
    }
  }

  async function run(send: boolean): Promise<ChannelLine[]> {
    if (!config || (!config.telegram && !config.email)) return [];
    return [...(config.telegram ? await telegram(send) : []), ...(config.email ? await email(send) : [])];
  }

  return {
    /** Whether each channel would deliver, sending nothing (`payd doctor`). */
    check: () => run(false),
    /** One test message through each channel and target, and what happened to each (`payd notify test`). */
    test: () => run(true),
  };
}

export type NotificationCheck = ReturnType<typeof createNotificationCheck>;
