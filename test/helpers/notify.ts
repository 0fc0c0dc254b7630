// A payd with notifications on: Telegram pointing at the fake Bot API, e-mail at a loopback SMTP server.
import type { ReceivedPayment } from '../../src/domain/payment.ts';
import { startFakeTelegram, type FakeTelegram } from '../fakes/telegram.ts';
import { startPayd, type PaydHarness } from './payd.ts';
import { startSmtp } from './smtp.ts';
import type { TestStore } from './stores.ts';

export const BOT_TOKEN = '123456:TEST-token-never-printed';
export const SHOP_CHAT = 1001;
export const OWNER_CHAT = 1002;
export const STRANGER_CHAT = 6666;

export function notificationsConfig(tg: FakeTelegram, smtpPort: number, o: { telegram?: Record<string, unknown>; email?: Record<string, unknown> | null; unmatched?: Record<string, unknown> } = {}) {
  return {
    ...(o.unmatched ? { unmatched: o.unmatched } : {}),
    // The fake's private chats: each chat's user has the chat's id, so these two people may act.
    telegram: { botToken: BOT_TOKEN, chatIds: [SHOP_CHAT, String(OWNER_CHAT)], actors: [SHOP_CHAT, String(OWNER_CHAT)], apiUrl: tg.url, ...o.telegram },
    ...(o.email === null ? {} : { email: { host: '127.0.0.1', port: smtpPort, starttls: false, from: 'payd@shop.example', to: ['owner@shop.example'], ...o.email } }),
  };
}

export async function startNotifyingPayd(t: import('node:test').TestContext, o: Parameters<typeof startPayd>[0] & { store?: TestStore; notify?: Parameters<typeof notificationsConfig>[2] } = {}) {
  const tg = await startFakeTelegram(BOT_TOKEN);
  const smtp = await startSmtp();
  const p = await startPayd({ workers: true, ...o, config: { ...(o.config ?? {}), notifications: notificationsConfig(tg, smtp.port, o.notify) } });
  t.after(async () => {
    await p.close();
    await tg.close();
    await smtp.close();
  });
  const m = await p.merchant('Shop');
  const create = async (amount: number, orderId: string, currency = 'UPI') => {
    const r = await p.api('POST', '/api/v1/intents/create-payment', { body: { amount, currency, order_id: orderId }, headers: m.headers });
    if (r.status !== 200) throw new Error(JSON.stringify(r.body));
    return r.body as { intent_id: string; pay_amount: number };
  };
  return { p, tg, smtp, m, create };
}

export const upiPayment = (p: PaydHarness, amountMinor: bigint, txRef: string): ReceivedPayment => ({
  method: 'UPI',
  receiver: 'shop@hdfcbank',
  amountMinor,
  txRef,
  occurredAt: p.clock.now(),
  observedAt: p.clock.now(),
  source: 'imap',
});
