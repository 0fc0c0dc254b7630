/**
 * The few Bot API methods payd uses (https://core.telegram.org/bots/api): every call is a POST of
 * JSON to <apiUrl>/bot<token>/<method>; the answer is { ok: true, result } or { ok: false,
 * error_code, description, parameters?: { retry_after } } (ResponseParameters). The token is in
 * the path, so no error or log line here ever carries the URL.
 */
import type { Secret } from '../../config/secret.ts';

export type InlineKeyboard = Array<Array<{ text: string; callback_data: string }>>;

export interface TgChat {
  id: number;
  type?: string;
}
export interface TgUser {
  id: number;
  is_bot?: boolean;
  first_name?: string;
  username?: string;
}
export interface TgMessage {
  message_id: number;
  date?: number;
  chat: TgChat;
  from?: TgUser;
  text?: string;
}
export interface TgCallbackQuery {
  id: string;
  from: TgUser;
  message?: TgMessage;
  data?: string;
}
export interface TgUpdate {
  update_id: number;
  message?: TgMessage;
  callback_query?: TgCallbackQuery;
}

/** A Bot API refusal or an unreachable API. `retryAfterMs`: Telegram said when (429); `permanent`: retrying the same request cannot help. */
export class TelegramError extends Error {
  constructor(
    message: string,
    readonly status: number | null,
    readonly retryAfterMs?: number,
    readonly permanent = false,
  ) {
    super(message);
    this.name = 'TelegramError';
  }
}

/** Bodies larger than this are not read (an answer of ours is at most 100 updates), bytes. */
const MAX_BODY = 4 * 1024 * 1024;

export function createTelegramApi(options: { apiUrl: string; token: Secret; fetch?: typeof fetch; timeoutMs?: number }) {
  const doFetch = options.fetch ?? fetch;
  const base = options.apiUrl.replace(/\/+$/, '');

  /** `params` as JSON, or a FormData (multipart/form-data: how a file is uploaded, #inputfile). */
  async function call<T>(method: string, params: Record<string, unknown> | FormData, c: { signal?: AbortSignal; timeoutMs?: number } = {}): Promise<T> {
    const timeout = AbortSignal.timeout(c.timeoutMs ?? options.timeoutMs ?? 10_000);
    const signal = c.signal ? AbortSignal.any([c.signal, timeout]) : timeout;
    let res: Response;
    try {
      const body = params instanceof FormData ? { body: params } : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(params) };
      res = await doFetch(`${base}/bot${options.token.reveal()}/${method}`, { method: 'POST', ...body, signal, redirect: 'manual' });
    } catch (err) {
      const why = timeout.aborted ? 'timed out' : ((err as Error).cause as Error | undefined)?.message ?? (err as Error).message;
      throw new TelegramError(`Telegram ${method}: ${why}`, null);
    }
    const text = await res.text();
    let body: { ok?: unknown; result?: unknown; description?: unknown; parameters?: { retry_after?: unknown } } = {};
    try {
      if (text.length <= MAX_BODY) body = JSON.parse(text);
    } catch {
      /* not JSON: judged by the status below */
    }
    if (res.ok && body.ok === true) return body.result as T;
    const description = typeof body.description === 'string' ? body.description.slice(0, 200) : `HTTP ${res.status}`;
    const retryAfter = typeof body.parameters?.retry_after === 'number' ? body.parameters.retry_after : res.status === 429 ? Number(res.headers.get('retry-after')) || 1 : undefined;
    // 400 (bad request), 401 (token), 403 (blocked / kicked), 404: the same request fails again.
    const permanent = res.status >= 400 && res.status < 500 && res.status !== 429 && res.status !== 408;
    throw new TelegramError(`Telegram ${method}: ${description}`, res.status, retryAfter === undefined ? undefined : retryAfter * 1000, permanent);
  }

  return {
    sendMessage(chatId: string, text: string, keyboard?: InlineKeyboard | null): Promise<TgMessage> {
      return call('sendMessage', { chat_id: chatId, text, link_preview_options: { is_disabled: true }, ...(keyboard ? { reply_markup: { inline_keyboard: keyboard } } : {}) });
    },
    /** A picture (PNG bytes) with a caption (#sendphoto: the file uploaded as multipart/form-data). */
    sendPhoto(chatId: string, png: Uint8Array, caption: string): Promise<TgMessage> {
      const form = new FormData();
      form.set('chat_id', chatId);
      form.set('caption', caption.slice(0, 1024));
      form.set('photo', new Blob([new Uint8Array(png)], { type: 'image/png' }), 'qr.png');
      return call('sendPhoto', form);
    },
    /** Long poll: Telegram answers as soon as there is an update, or after `timeoutSeconds`. */
    getUpdates(offset: number | undefined, timeoutSeconds: number, signal?: AbortSignal): Promise<TgUpdate[]> {
      return call('getUpdates', { ...(offset !== undefined ? { offset } : {}), timeout: timeoutSeconds, allowed_updates: ['message', 'callback_query'] }, { signal, timeoutMs: timeoutSeconds * 1000 + 10_000 });
    },
    /** The bot itself: proves the token (#getme). */
    getMe(): Promise<TgUser> {
      return call('getMe', {});
    },
    /** A chat the bot can see (#getchat): "Bad Request: chat not found" until someone wrote to the bot there. */
    getChat(chatId: string): Promise<TgChat & { title?: string; username?: string; first_name?: string }> {
      return call('getChat', { chat_id: chatId });
    },
    answerCallbackQuery(id: string, text: string): Promise<boolean> {
      return call('answerCallbackQuery', { callback_query_id: id, text: text.slice(0, 200) });
    },
  };
}

export type TelegramApi = ReturnType<typeof createTelegramApi>;
