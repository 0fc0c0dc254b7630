/**
 * The Telegram bot: long-polls getUpdates (worker leader only: no inbound port) and answers
 * /today, /held, /intent and /status in the configured chats, nowhere else. Reading is allowed to
 * anyone in those chats; acting (a button press) only to the Telegram users listed as actors, and
 * never from a channel, whose posts and presses carry no trustworthy person. An inline button's
 * callback_data is a random token payd recorded for that chat, payment and action: valid once,
 * until it expires. Anything else (another chat, a token payd did not issue, a used one, an
 * update at or below the stored offset) is refused, audited and changes nothing.
 */
import { sql } from 'kysely';
import { amountFromDb, amountSum, amountFromSum } from '../../db/amounts.ts';
import { audit } from '../../db/audit.ts';
import type { Db } from '../../db/open.ts';
import type { HeldPayments } from '../../domain/notify/held-port.ts';
import { amountText, clip, heldText, type ShowAmount } from '../../domain/notify/text.ts';
import type { Clock, Logger, Random } from '../../domain/ports.ts';
import { PaydError } from '../../domain/errors.ts';
import { ACTIONS, heldButtons, recordGrants } from './buttons.ts';
import type { NotificationQueue } from './queue.ts';
import type { InlineKeyboard, TelegramApi, TgCallbackQuery, TgMessage, TgUpdate, TgUser } from './telegram-api.ts';

const OFFSET_KEY = 'notify:telegram:offset';
/** Long-poll wait per getUpdates, s (Telegram answers at once when an update arrives). */
export const LONG_POLL_S = 25;

const actorOf = (u: TgUser): string => `telegram:${u.username ? `@${u.username}` : u.id}`;

/** Epoch ms of the last midnight in `timeZone`. */
export function midnight(now: number, timeZone: string): number {
  const parts = Object.fromEntries(new Intl.DateTimeFormat('en-US', { timeZone, hourCycle: 'h23', year: 'numeric', month: 'numeric', day: 'numeric', hour: 'numeric', minute: 'numeric', second: 'numeric' }).formatToParts(now).map((p) => [p.type, p.value]));
  const wall = Date.UTC(Number(parts.year), Number(parts.month) - 1, Number(parts.day), Number(parts.hour), Number(parts.minute), Number(parts.second));
  const offset = wall - Math.floor(now / 1000) * 1000;
  return Date.UTC(Number(parts.year), Number(parts.month) - 1, Number(parts.day)) - offset;
}

export interface BotDeps {
  db: Db;
  api: TelegramApi;
  queue: NotificationQueue;
  chatIds: readonly string[];
  /** Telegram user ids allowed to press buttons; empty or absent: nobody acts. */
  actors?: readonly string[];
  clock: Clock;
  random: Random;
  log: Logger;
  timeZone: string;
  show: ShowAmount;
  /** Sources, lag and alarms in a few lines (the leader's view). */
  status(): Promise<string>;
  /** Held payments; absent: /held says so and buttons are never issued. */
  held?: HeldPayments;
  /** Payment links; absent: /link says it is not available. */
  links?: BotLinks;
}

/** What /link needs: create a link (for the only active merchant) and draw its QR code. */
export interface BotLinks {
  create(input: { title: string; price?: { amount: string; currency: string }; customerAmount?: { min: string; max: string; currency: string } }, actor: `telegram:${string}`): Promise<{ url: string; title: string }>;
  qrPng(url: string): Promise<Uint8Array>;
}

const LINK_USAGE = 'Usage: /link <price> <title>, e.g. /link 499 Blue saree; or /link 10-5000 counter for a counter QR where the customer types the amount (INR).';

export function createTelegramBot(deps: BotDeps) {
  const allowed = new Set(deps.chatIds);
  const actors = new Set(deps.actors ?? []);

  const reply = (chatId: string, text: string, keyboard?: InlineKeyboard) => deps.api.sendMessage(chatId, clip(text), keyboard);

  async function today(): Promise<string> {
    const from = midnight(deps.clock.now(), deps.timeZone);
    const rows = await deps.db
      .selectFrom('intents')
      .leftJoin('payments', 'payments.id', 'intents.payment_id')
      .select(['intents.method', sql<string>`count(*)`.as('n'), amountSum(deps.db, sql`coalesce(payments.amount_minor, intents.pay_amount_minor)`).as('total')])
      .where('intents.status', '=', 'settled')
      .where('intents.verified_at', '>=', from)
      .groupBy('intents.method')
      .execute();
    const lines = rows.map((r) => `${r.method}: ${amountText(deps.show, r.method, amountFromSum(r.total))} (${r.n} payment${String(r.n) === '1' ? '' : 's'})`);
    return lines.length ? `Today (${deps.timeZone}):\n${lines.join('\n')}` : `No payments yet today (${deps.timeZone}).`;
  }

  async function intent(arg: string): Promise<string> {
    if (!arg) return 'Usage: /intent <intent id or order id>';
    const rows = await deps.db.selectFrom('intents').selectAll().where((eb) => eb.or([eb('id', '=', arg), eb('order_id', '=', arg)])).orderBy('created_at', 'desc').limit(3).execute();
    if (rows.length === 0) return `No intent ${arg}.`;
    return rows
      .map((r) => {
        const amount = amountText(deps.show, r.method, amountFromDb(r.pay_amount_minor));
        const when = r.verified_at ? `, paid ${new Date(Number(r.verified_at)).toISOString()}` : `, created ${new Date(Number(r.created_at)).toISOString()}`;
        return `${r.id}\norder ${r.order_id}: ${amount}, ${r.status}${when}${r.transaction_hash ? `\nref ${r.transaction_hash}` : ''}`;
      })
      .join('\n\n');
  }

  async function held(chatId: string): Promise<void> {
    if (!deps.held) {
      await reply(chatId, 'Held payments are not available in this version of payd.');
      return;
    }
    const { items } = await deps.held.listPayments({ status: 'held', limit: 10 });
    if (items.length === 0) {
      await reply(chatId, 'No held payments.');
      return;
    }
    for (const p of items) {
      const order = await deps.db.selectFrom('intents').select('order_id').where('id', '=', p.intentId).executeTakeFirst();
      const { keyboard, grants } = heldButtons(deps.random, deps.clock.now(), chatId, p.intentId, p.transactionHash);
      await recordGrants(deps.db, grants);
      await reply(chatId, heldText(deps.show, { method: p.method, amountMinor: BigInt(p.amount), orderId: order?.order_id ?? null, reference: p.transactionHash, reason: p.reason }), keyboard);
    }
  }

  /** /link 499 Blue saree: a payment link, answered with its URL and its QR code as a photo. Acting: listed actors only. */
  async function link(chatId: string, m: TgMessage, arg: string): Promise<void> {
    const from = m.from;
    if (m.chat.type === 'channel' || !from || !actors.has(String(from.id))) {
      const who = from ? actorOf(from) : 'telegram:(channel)';
      deps.log.warn('telegram: /link refused', { chat_id: chatId, user: who });
      await audit(deps.db, { at: deps.clock.now(), actor: who, action: 'telegram.refused', subject: chatId, details: { why: m.chat.type === 'channel' ? 'channel' : 'not an actor', command: 'link', user_id: from?.id ?? null } });
      return void (await reply(chatId, from && m.chat.type !== 'channel' ? `You may not create links: ask the operator to add your Telegram user id (${from.id}) to notifications.telegram.actors.` : 'Links cannot be created from a channel.'));
    }
    if (!deps.links) return void (await reply(chatId, 'Payment links are not available here.'));
    const parsed = /^(\d+(?:\.\d{1,2})?)(?:\s*-\s*(\d+(?:\.\d{1,2})?))?\s+(.+)$/.exec(arg.trim());
    if (!parsed) return void (await reply(chatId, LINK_USAGE));
    const [, first, second, title] = parsed;
    const input = second !== undefined ? { title: title!, customerAmount: { min: first!, max: second, currency: 'INR' } } : { title: title!, price: { amount: first!, currency: 'INR' } };
    let created: { url: string; title: string };
    try {
      created = await deps.links.create(input, actorOf(from) as `telegram:${string}`);
    } catch (err) {
      if (!(err instanceof PaydError) || err.code === 'INTERNAL') throw err;
      return void (await reply(chatId, `Not created: ${err.message}`));
    }
    const what = second !== undefined ? `the customer types ₹${first} to ₹${second}` : `₹${first}`;
    await deps.api.sendPhoto(chatId, await deps.links.qrPng(created.url), `${created.title}: ${what}\n${created.url}\nForward the link, or print this QR code.`);
  }

  async function onMessage(m: TgMessage): Promise<void> {
    const chatId = String(m.chat.id);
    const text = (m.text ?? '').trim();
    if (!allowed.has(chatId)) {
      // Never answered: a stranger learns nothing. Logged, so an operator setting up can read the chat id.
      deps.log.info('telegram: message from a chat not in notifications.telegram.chatIds ignored', { chat_id: chatId });
      return;
    }
    const [head = '', ...rest] = text.split(/\s+/);
    const command = head.startsWith('/') ? head.slice(1).split('@')[0]!.toLowerCase() : '';
    const arg = rest.join(' ').slice(0, 200);
    switch (command) {
      case 'today':
        return void (await reply(chatId, await today()));
      case 'held':
        return held(chatId);
      case 'intent':
        return void (await reply(chatId, await intent(arg)));
      case 'status':
        return void (await reply(chatId, await deps.status()));
      case 'link':
        return link(chatId, m, arg);
      case 'start':
      case 'help':
        return void (await reply(chatId, `payd here. This chat is ${chatId}.\n/today takings today\n/held payments waiting for you\n/intent <id or order id>\n/status sources and alarms\n/link <price> <title> a payment link and its QR code`));
      default:
        if (command) await reply(chatId, 'Unknown command. Try /help.');
    }
  }

  async function onCallback(q: TgCallbackQuery): Promise<void> {
    const chatId = q.message ? String(q.message.chat.id) : '';
    const data = typeof q.data === 'string' ? q.data.slice(0, 64) : '';
    const actor = actorOf(q.from);
    const refuse = async (why: string, answer: string) => {
      deps.log.warn('telegram: button press refused', { chat_id: chatId, user: actor, why });
      await audit(deps.db, { at: deps.clock.now(), actor, action: 'telegram.refused', subject: chatId || null, details: { why, user_id: q.from.id, chat_type: q.message?.chat.type ?? null } });
      await deps.api.answerCallbackQuery(q.id, answer);
    };
    // Who pressed, before what was pressed: a channel speaks for no one, and only a listed actor may act.
    if (q.message?.chat.type === 'channel') return refuse('channel', 'Buttons do not work in a channel.');
    if (!allowed.has(chatId)) return refuse('chat not configured', 'Not allowed here.');
    if (!actors.has(String(q.from.id))) return refuse('not an actor', `You may not act here: ask the operator to add your Telegram user id (${q.from.id}) to notifications.telegram.actors.`);
    const now = deps.clock.now();
    // Taken atomically: of two presses (or a replay) only one finds it unused.
    const taken = await deps.db
      .updateTable('telegram_actions')
      .set({ used_at: now, used_by: actor })
      .where('token', '=', data)
      .where('chat_id', '=', chatId)
      .where('used_at', 'is', null)
      .where('expires_at', '>', now)
      .returningAll()
      .executeTakeFirst();
    if (!taken) {
      const row = data ? await deps.db.selectFrom('telegram_actions').select(['chat_id', 'used_at', 'used_by']).where('token', '=', data).executeTakeFirst() : undefined;
      if (!row || row.chat_id !== chatId) return refuse('not issued by payd', 'This button was not issued by payd.');
      if (row.used_at !== null) return refuse('already used', `Already done (by ${row.used_by}).`);
      return refuse('expired', 'This button has expired: send /held again.');
    }
    if (!deps.held || !(taken.action in ACTIONS)) return refuse('no held payments here', 'Not available.');
    const call = { intentId: taken.intent_id, transactionHash: taken.transaction_hash, actor };
    try {
      if (taken.action === 'accept') await deps.held.acceptPayment(call);
      else await deps.held.markRefunded(call);
    } catch (err) {
      // Refused by the service (not acceptable any more) stays used; a failure of ours frees the button again.
      if (!(err instanceof PaydError) || err.code === 'INTERNAL') await deps.db.updateTable('telegram_actions').set({ used_at: null, used_by: null }).where('token', '=', data).execute();
      const why = err instanceof PaydError ? err.message : 'payd could not do it now; try again';
      deps.log.warn('telegram: button action failed', { user: actor, action: taken.action, intent_id: taken.intent_id, error: (err as Error).message });
      await deps.api.answerCallbackQuery(q.id, `Not done: ${why}`.slice(0, 200));
      return;
    }
    // Done: the same action's other buttons for this payment (the payment.held message's, an earlier /held's)
    // are used up too, so they answer "Already done" rather than confirm a second time.
    await deps.db.updateTable('telegram_actions').set({ used_at: now, used_by: actor }).where('intent_id', '=', taken.intent_id).where('transaction_hash', '=', taken.transaction_hash).where('action', '=', taken.action).where('used_at', 'is', null).execute();
    const done = taken.action === 'accept' ? 'Accepted' : 'Marked refunded';
    deps.log.info('telegram: button action done', { user: actor, action: taken.action, intent_id: taken.intent_id });
    await deps.api.answerCallbackQuery(q.id, `${done}.`);
    await reply(chatId, `${done} by ${actor.slice('telegram:'.length)}: payment ${taken.transaction_hash} of intent ${taken.intent_id}.`);
  }

  async function handle(u: TgUpdate): Promise<void> {
    if (u.message) await onMessage(u.message);
    else if (u.callback_query) await onCallback(u.callback_query);
  }

  return {
    /**
     * One long poll and its updates. The offset is stored after each update: a crash re-reads at
     * most the update in hand (its button is used by then), and an update at or below the stored
     * offset (a replay) is dropped.
     */
    async poll(signal: AbortSignal): Promise<void> {
      const at = await deps.queue.loadState<{ offset: number }>(OFFSET_KEY);
      const updates = await deps.api.getUpdates(at?.offset, LONG_POLL_S, signal);
      let offset = at?.offset ?? 0;
      for (const u of updates) {
        if (signal.aborted) return;
        if (typeof u.update_id !== 'number' || u.update_id < offset) {
          deps.log.warn('telegram: replayed update dropped', { update_id: u.update_id });
          continue;
        }
        try {
          await handle(u);
        } catch (err) {
          // One bad update must not stall the others (it is not retried: its reply may have gone out).
          deps.log.warn('telegram: update failed', { update_id: u.update_id, error: (err as Error).message });
        }
        offset = u.update_id + 1;
        await deps.queue.saveState(deps.db, OFFSET_KEY, { offset });
      }
    },
  };
}
