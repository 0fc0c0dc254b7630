import type { BotLinks } from '../services/notify/bot.ts';
import type { LinkService } from '../services/links/index.ts';
import { linkQrPng } from '../services/links/qr.ts';

/** The bot's /link: a link for the only active merchant (a shop's own payd), and its QR code. */
export function botLinks(links: LinkService): BotLinks {
  return {
    create: async (input, actor) => links.create(await links.soleMerchant(), input, actor),
    qrPng: linkQrPng,
  };
}
