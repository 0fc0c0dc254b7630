/**
 * The Accept / Refunded buttons of a held payment. A button's callback_data is a random token
 * recorded (in `telegram_actions`) with its chat, payment and action: the bot obeys only a token
 * it finds there, unused and unexpired. Issued by /held and with each `payment.held` message.
 */
import type { Random } from '../../domain/ports.ts';
import type { TelegramActionsTable } from '../../db/schema.ts';
import type { Db, Tx } from '../../db/open.ts';

export const ACTIONS = { accept: 'Accept', refunded: 'Refunded' } as const;
export type Action = keyof typeof ACTIONS;
/** A button works this long after it was sent, ms. */
export const BUTTON_TTL_MS = 24 * 3_600_000;

export type ButtonGrant = TelegramActionsTable;
export type Keyboard = Array<Array<{ text: string; callback_data: string }>>;

/** Two buttons for one held payment in one chat, and the grants to record with them. */
export function heldButtons(random: Random, now: number, chatId: string, intentId: string, transactionHash: string): { keyboard: Keyboard; grants: ButtonGrant[] } {
  const grants = (Object.keys(ACTIONS) as Action[]).map((action) => ({
    token: Buffer.from(random.bytes(18)).toString('base64url'),
    chat_id: chatId,
    action,
    intent_id: intentId,
    transaction_hash: transactionHash,
    created_at: now,
    expires_at: now + BUTTON_TTL_MS,
    used_at: null,
    used_by: null,
  }));
  return { keyboard: [grants.map((g) => ({ text: ACTIONS[g.action as Action], callback_data: g.token }))], grants };
}

export async function recordGrants(tx: Tx | Db, grants: ButtonGrant[]): Promise<void> {
  if (grants.length > 0) await tx.insertInto('telegram_actions').values(grants).execute();
}
