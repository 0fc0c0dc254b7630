import type { Command } from 'commander';
import { withApp, type CliEnv } from '../context.ts';
import { printJson, printRecord, printTable } from '../output.ts';
import { duration, leaf, positiveInt, type Opts } from './leaf.ts';
import type { LinkView } from '../../services/links/index.ts';

const priceText = (l: LinkView) => (l.price ? `${l.price.amount.text} ${l.price.currency}` : `${l.customer_amount!.min.text}–${l.customer_amount!.max.text} ${l.customer_amount!.currency} (customer enters)`);
const row = (l: LinkView) => ({ link_id: l.link_id, title: l.title, price: priceText(l), status: l.status, payments: l.payments, url: l.url, methods: l.methods?.join(',') ?? 'all', created_at: l.created_at });

export function linkCommands(program: Command, env: CliEnv): void {
  const l = program.command('links').description('payment links: a page with a price (or an amount the customer enters) to forward or print as a QR code');

  leaf(l.command('create').description('create a payment link; prints its URL and where its QR code is'))
    .requiredOption('--title <text>', 'what the customer pays for ("Blue saree", "counter")')
    .option('--amount <amount>', 'a fixed price in INR (or with --currency)')
    .option('--min <amount>', 'the customer enters the amount: at least this')
    .option('--max <amount>', 'the customer enters the amount: at most this')
    .option('--currency <fiat>', 'INR, USD or EUR (default INR)', 'INR')
    .option('--methods <ids>', 'offer only these methods, comma-separated (default: every enabled one)')
    .option('--single-use', 'the link takes one paid payment, then says it has been paid')
    .option('--expires-in <duration>', 'the link expires after this long: 90m, 24h, 7d', duration)
    .option('--merchant <client_id>', 'the merchant it is for (default: the only active merchant)')
    .option('--json', 'print JSON')
    .action((o: Opts, cmd: Command) =>
      withApp(cmd.optsWithGlobals(), env, async (app) => {
        const merchant = (o.merchant as string | undefined) ?? (await app.links.soleMerchant());
        const currency = o.currency as string;
        const entered = o.min !== undefined || o.max !== undefined;
        const link = await app.links.create(
          merchant,
          {
            title: o.title as string,
            price: o.amount !== undefined ? { amount: o.amount as string, currency } : undefined,
            customerAmount: entered ? { min: (o.min as string | undefined) ?? '', max: (o.max as string | undefined) ?? '', currency } : undefined,
            methods: o.methods === undefined ? undefined : String(o.methods).split(',').map((m) => m.trim()).filter(Boolean),
            singleUse: Boolean(o.singleUse),
            expiresAt: o.expiresIn === undefined ? undefined : app.clock.now() + (o.expiresIn as number) * 1000,
          },
          'cli',
        );
        if (o.json) return printJson(env.io, link);
        printRecord(env.io, row(link));
        env.io.err(`Forward ${link.url}, or print its QR code: ${link.qr_png_url}`);
      }),
    );

  leaf(l.command('list').description('payment links, newest first, with how many were paid'))
    .option('--limit <n>', 'how many', positiveInt, 50)
    .option('--json', 'print JSON')
    .action((o: Opts, cmd: Command) =>
      withApp(cmd.optsWithGlobals(), env, async (app) => {
        const links = await app.links.list({ limit: o.limit as number });
        if (o.json) return printJson(env.io, links);
        printTable(env.io, links.map(row), ['link_id', 'title', 'price', 'status', 'payments', 'url']);
      }),
    );

  for (const [verb, action, done] of [
    ['deactivate', 'deactivate', 'turned off: its page says so and takes nothing'],
    ['activate', 'activate', 'turned on again'],
  ] as const) {
    leaf(l.command(`${verb} <link>`).description(`turn a link ${verb === 'activate' ? 'on again' : 'off'} (by link id or the last part of its URL)`))
      .option('--json', 'print JSON')
      .action((ref: string, o: Opts, cmd: Command) =>
        withApp(cmd.optsWithGlobals(), env, async (app) => {
          const link = await app.links[action](ref, { actor: 'cli' });
          if (o.json) return printJson(env.io, link);
          env.io.out(`${link.url} ${done}`);
        }),
      );
  }
}
