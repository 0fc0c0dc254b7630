import { FIAT_CODES, isFiat, missingPair, RATE_SOURCES, type Fiat } from '../../domain/rates.ts';
import { builtinMethods, pricingPegs } from '../../methods/registry.ts';
import { suggestSources } from '../../pricing/suggest.ts';
import type { Prompter } from '../prompter.ts';
import { secretSource, type Json, type NeededSecret } from './secrets.ts';

/** The optional sections `payd init` offers after the methods: pricing, the console, notifications. Each one asked is written whole. */
export interface OptionalSections {
  pricing?: Json;
  console?: Json;
  notifications?: Json;
}

const list = (s: string): string[] =>
  s
    .split(',')
    .map((x) => x.trim())
    .filter((x) => x !== '');

/**
 * Pricing: the fiat currencies intents may be priced in, and for each pair the chosen methods then
 * need, its sources (the ones that quote it without a key, as `payd doctor` suggests).
 */
async function askPricing(p: Prompter, methods: Json): Promise<Json | undefined> {
  const units = [...new Set(Object.keys(methods).flatMap((id) => builtinMethods.get(id)?.rules.unit ?? []))];
  if (units.length === 0 || !(await p.confirm({ message: `Price intents in a fiat currency (${FIAT_CODES.join(', ')}), converted to the method's amount at a live rate?`, default: false }))) return undefined;
  const fiats = list(
    await p.input({
      message: `Fiat currencies to price in, comma-separated (${FIAT_CODES.join(', ')})`,
      default: 'INR',
      validate: (s) => (list(s).length > 0 && list(s).every((f) => isFiat(f.toUpperCase())) ? true : `expected some of ${FIAT_CODES.join(', ')}`),
    }),
  ).map((f) => f.toUpperCase() as Fiat);
  const pegs = pricingPegs(builtinMethods);
  const pairs: Record<string, string[]> = {};
  // Pair by pair: a cross leg added for one unit (USD/INR) may already serve the next.
  for (const unit of units)
    for (const fiat of fiats) {
      const pair = missingPair(unit, fiat, (x) => Object.hasOwn(pairs, x), pegs);
      if (pair === null) continue;
      const sources = list(
        await p.input({
          message: `Rate sources for ${pair}, comma-separated (two or more must agree; one alone is trusted alone)`,
          default: suggestSources(pair).join(','),
          validate: (s) => (list(s).length > 0 && list(s).every((x) => (RATE_SOURCES as readonly string[]).includes(x)) ? true : `expected some of ${RATE_SOURCES.join(', ')}`),
        }),
      );
      pairs[pair] = sources;
    }
  return { pairs };
}

/** The console: on, and the address the operator's browser opens (passkeys are bound to its host name). */
async function askConsole(p: Prompter, publicUrl: string): Promise<Json | undefined> {
  if (!(await p.confirm({ message: 'Turn on the operator console (/console: today, payments, held payments, in a browser)?', default: false }))) return undefined;
  const origin = await p.input({
    message: "The console's address as the browser shows it (passkeys are bound to its host name)",
    default: new URL(publicUrl).origin,
    validate: (s) => (/^https?:\/\/[^/]+$/.test(s.trim()) ? true : 'expected an address like https://pay.example.com (no path)'),
  });
  return { enabled: true, origin: origin.trim() };
}

const isChatId = (s: string) => /^-?\d{1,20}$/.test(s);
const isEmail = (s: string) => /^[^\s@<>(),;:"]+@[^\s@<>(),;:"]+\.[^\s@<>(),;:"]+$/.test(s);

/** Notifications: Telegram (token as a secret reference, chats) and e-mail over SMTP. */
async function askNotifications(p: Prompter, systemd: boolean, needed: NeededSecret[]): Promise<Json | undefined> {
  const out: Json = {};
  if (await p.confirm({ message: 'Tell you about sales and problems on Telegram (a bot you create with @BotFather)?', default: false })) {
    const botToken = await secretSource(p, systemd, { path: 'notifications.telegram.botToken', what: 'Telegram bot token', env: 'PAYD_TELEGRAM_TOKEN', credential: 'telegram-bot-token' }, needed);
    const chats = await p.input({
      message: 'Telegram chat ids to tell, comma-separated (payd notify test and the bot\'s /help show a chat\'s id)',
      validate: (s) => (list(s).length > 0 && list(s).every(isChatId) ? true : 'expected numeric chat ids, like 123456789 or -1001234567890'),
    });
    out.telegram = { botToken, chatIds: list(chats) };
  }
  if (await p.confirm({ message: 'Tell you by e-mail (an SMTP server you can send through)?', default: false })) {
    const host = (await p.input({ message: 'SMTP host', validate: (s) => (s.trim() !== '' ? true : 'expected a host name') })).trim();
    const port = (await p.number({ message: 'SMTP port (587: STARTTLS; 465: TLS)', default: 587, min: 1, max: 65535, required: true })) ?? 587;
    const user = (await p.input({ message: 'SMTP user (empty: no login)', default: '' })).trim();
    const email: Json = { host, port, ...(port === 465 ? { secure: true } : {}) };
    if (user !== '') {
      email.user = user;
      email.password = await secretSource(p, systemd, { path: 'notifications.email.password', what: 'SMTP password', env: 'PAYD_SMTP_PASSWORD', credential: 'smtp-password' }, needed);
    }
    email.from = (await p.input({ message: 'From address', validate: (s) => (isEmail(s.trim()) ? true : 'expected an e-mail address') })).trim();
    email.to = list(await p.input({ message: 'Send to, comma-separated', validate: (s) => (list(s).length > 0 && list(s).every(isEmail) ? true : 'expected e-mail addresses') }));
    out.email = email;
  }
  return Object.keys(out).length > 0 ? out : undefined;
}

/** Asks the optional sections in order; a section declined is left out (its defaults apply). */
export async function askOptional(prompter: Prompter, options: { systemd: boolean; methods: Json; publicUrl: string; needed: NeededSecret[] }): Promise<OptionalSections> {
  const sections: OptionalSections = {};
  const pricing = await askPricing(prompter, options.methods);
  if (pricing) sections.pricing = pricing;
  const console = await askConsole(prompter, options.publicUrl);
  if (console) sections.console = console;
  const notifications = await askNotifications(prompter, options.systemd, options.needed);
  if (notifications) sections.notifications = notifications;
  return sections;
}
