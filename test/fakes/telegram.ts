/**
 * A local fake of the Telegram Bot API, serving only shapes the real one documents:
 * - https://core.telegram.org/bots/api#making-requests: POST <base>/bot<token>/<method> with JSON;
 *   answers { ok: true, result } or { ok: false, error_code, description[, parameters] }.
 * - #responseparameters: a 429 carries parameters.retry_after (seconds).
 * - #getupdates: offset (updates below it are confirmed and forgotten), timeout (long poll, s),
 *   an Array of Update { update_id, message | callback_query }.
 * - #sendmessage returns the sent Message; #answercallbackquery returns true.
 * - #sendphoto: photo uploaded as a file (#inputfile: multipart/form-data) with chat_id and caption; returns the Message.
 * - #getme returns the bot's User (is_bot true, username); #getchat a ChatFullInfo (id, type, …).
 *   A chat_id the bot has never been written to is refused with 400 "Bad Request: chat not found"
 *   (sendMessage and getChat alike), the Bot API's own description for it.
 * - recorded getUpdates answers with a callback_query (tgbot 0.47 tests/data/get-updates-callback-query.json,
 *   docs.rs) give the CallbackQuery shape: { id, from: User, message: { message_id, date, chat }, chat_instance, data }.
 * Test controls: push updates, replay one, fail the next calls, go down, slow down.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface SentMessage {
  chat_id: string;
  text: string;
  reply_markup?: { inline_keyboard: Array<Array<{ text: string; callback_data: string }>> };
  at: number;
}

type Update = { update_id: number; message?: unknown; callback_query?: unknown };

export async function startFakeTelegram(token: string) {
  const sent: SentMessage[] = [];
  const answers: Array<{ callback_query_id: string; text?: string }> = [];
  const photos: Array<{ chat_id: string; caption: string; photo: Uint8Array }> = [];
  const updates: Update[] = [];
  /** Served once whatever the offset: a replay the real API never sends (a hostile path or a confused proxy). */
  const replays: Update[] = [];
  const calls: string[] = [];
  const callTimes: number[] = [];
  let nextUpdateId = 700_000;
  let nextMessageId = 1;
  let waiters: Array<() => void> = [];
  /** Per method: answers to give instead of the real one, first in first out. */
  const failures: Array<{ method: string; status: number; retryAfter?: number }> = [];
  let down = false;
  let delayMs = 0;
  /** Chats the bot has never been written to: Telegram does not know them for this bot. */
  const unknownChats = new Set<string>();

  const json = (res: ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  };
  const readBody = (req: IncomingMessage): Promise<any> =>
    new Promise((resolve) => {
      const chunks: Buffer[] = [];
      req.on('data', (c) => chunks.push(c));
      req.on('end', async () => {
        const raw = Buffer.concat(chunks);
        const type = String(req.headers['content-type'] ?? '');
        try {
          if (type.startsWith('multipart/form-data')) {
            const form = await new Response(raw, { headers: { 'content-type': type } }).formData();
            const fields: Record<string, unknown> = {};
            for (const [k, v] of form) fields[k] = typeof v === 'string' ? v : new Uint8Array(await v.arrayBuffer());
            return resolve(fields);
          }
          resolve(JSON.parse(raw.toString('utf8') || '{}'));
        } catch {
          resolve({});
        }
      });
    });

  const server = createServer(async (req, res) => {
    const m = /^\/bot([^/]+)\/(\w+)$/.exec(req.url ?? '');
    const body = await readBody(req);
    if (!m) return json(res, 404, { ok: false, error_code: 404, description: 'Not Found' });
    if (m[1] !== token) return json(res, 401, { ok: false, error_code: 401, description: 'Unauthorized' });
    const method = m[2]!;
    calls.push(method);
    callTimes.push(Date.now());
    if (down) {
      // An outage as a client meets it: the connection is dropped without an answer.
      req.socket.destroy();
      return;
    }
    if (delayMs > 0 && method !== 'getUpdates') await new Promise((r) => setTimeout(r, delayMs));
    const fi = failures.findIndex((f) => f.method === method);
    if (fi >= 0) {
      const f = failures.splice(fi, 1)[0]!;
      if (f.status === 429) return json(res, 429, { ok: false, error_code: 429, description: `Too Many Requests: retry after ${f.retryAfter}`, parameters: { retry_after: f.retryAfter } });
      return json(res, f.status, { ok: false, error_code: f.status, description: f.status >= 500 ? 'Internal Server Error' : 'Bad Request' });
    }
    if ((method === 'sendMessage' || method === 'getChat') && unknownChats.has(String(body.chat_id))) return json(res, 400, { ok: false, error_code: 400, description: 'Bad Request: chat not found' });
    switch (method) {
      case 'getMe':
        return json(res, 200, { ok: true, result: { id: Number(token.split(':')[0]), is_bot: true, first_name: 'Shop bot', username: 'shop_payd_bot', can_join_groups: true, can_read_all_group_messages: false, supports_inline_queries: false } });
      case 'getChat':
        return json(res, 200, { ok: true, result: { id: Number(body.chat_id), type: 'private', first_name: 'Asha', accent_color_id: 0, max_reaction_count: 11 } });
      case 'sendMessage': {
        const msg: SentMessage = { chat_id: String(body.chat_id), text: String(body.text), reply_markup: body.reply_markup, at: Date.now() };
        sent.push(msg);
        return json(res, 200, { ok: true, result: { message_id: nextMessageId++, date: Math.floor(Date.now() / 1000), chat: { id: Number(body.chat_id), type: 'private' }, text: msg.text } });
      }
      case 'sendPhoto': {
        photos.push({ chat_id: String(body.chat_id), caption: String(body.caption ?? ''), photo: body.photo instanceof Uint8Array ? body.photo : new Uint8Array() });
        return json(res, 200, { ok: true, result: { message_id: nextMessageId++, date: Math.floor(Date.now() / 1000), chat: { id: Number(body.chat_id), type: 'private' }, caption: body.caption } });
      }
      case 'answerCallbackQuery':
        answers.push({ callback_query_id: String(body.callback_query_id), text: body.text });
        return json(res, 200, { ok: true, result: true });
      case 'getUpdates': {
        const offset = typeof body.offset === 'number' ? body.offset : undefined;
        const pick = () => [...replays.splice(0), ...updates.filter((u) => offset === undefined || u.update_id >= offset)].slice(0, 100);
        // Confirmed: Telegram forgets updates below the offset.
        if (offset !== undefined) for (let i = updates.length - 1; i >= 0; i--) if (updates[i]!.update_id < offset) updates.splice(i, 1);
        let list = pick();
        if (list.length === 0 && Number(body.timeout) > 0) {
          await new Promise<void>((resolve) => {
            const t = setTimeout(resolve, Math.min(Number(body.timeout), 30) * 1000);
            waiters.push(() => {
              clearTimeout(t);
              resolve();
            });
          });
          list = pick();
        }
        if (res.destroyed) return;
        return json(res, 200, { ok: true, result: list });
      }
      default:
        return json(res, 404, { ok: false, error_code: 404, description: 'Not Found: method not found' });
    }
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const push = (u: Omit<Update, 'update_id'>, id = nextUpdateId++): Update => {
    const update = { update_id: id, ...u };
    updates.push(update);
    const w = waiters;
    waiters = [];
    for (const fn of w) fn();
    return update;
  };
  const user = (id: number, username?: string) => ({ id, is_bot: false, first_name: username ?? 'User', ...(username ? { username } : {}) });

  return {
    url,
    sent,
    photos,
    answers,
    calls,
    /** When each of `calls` arrived (Date.now()), index for index. */
    callTimes,
    /** A text message from `chatId` (a private chat: the user's id is the chat's). */
    message(chatId: number, text: string, username = 'asha') {
      return push({ message: { message_id: nextMessageId++, date: Math.floor(Date.now() / 1000), chat: { id: chatId, type: 'private' }, from: user(chatId, username), text } });
    },
    /**
     * A button press in `chatId` carrying `data`: by default from the private chat's own user; `from` another
     * user's id (a member of a group), `chatType` 'group' / 'channel' (#chat: type is private, group, supergroup or channel).
     */
    callback(chatId: number, data: string, username = 'asha', o: { from?: number; chatType?: string } = {}) {
      return push({ callback_query: { id: `cq-${nextUpdateId}`, from: user(o.from ?? chatId, username), message: { message_id: 1, date: Math.floor(Date.now() / 1000), chat: { id: chatId, type: o.chatType ?? 'private' } }, chat_instance: `ci-${chatId}`, data } });
    },
    /** The same update again with its old update_id, served even below the offset (a replay by someone on the path). */
    replay(u: Update) {
      replays.push({ ...u });
      const w = waiters;
      waiters = [];
      for (const fn of w) fn();
      return u;
    },
    fail(method: string, status: number, retryAfter?: number) {
      failures.push({ method, status, retryAfter });
    },
    /** A chat id the bot was never written to: sendMessage and getChat answer "chat not found". */
    forgetChat(chatId: number | string) {
      unknownChats.add(String(chatId));
    },
    setDown(v: boolean) {
      down = v;
    },
    setDelay(ms: number) {
      delayMs = ms;
    },
    async close() {
      for (const fn of waiters) fn();
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}

export type FakeTelegram = Awaited<ReturnType<typeof startFakeTelegram>>;
