import type { Command } from 'commander';
import { withApp, type CliEnv } from '../context.ts';
import { printJson, printRecord, printTable } from '../output.ts';
import { leaf, type Opts } from './leaf.ts';

export function merchantCommands(program: Command, e: CliEnv): void {
  const m = program.command('merchant').description('issue and manage merchant credentials');

  leaf(m.command('create').description('create a merchant; prints its secrets once'))
    .requiredOption('--name <name>', 'merchant name')
    .option('--webhook-url <url>', 'where payment.success webhooks are sent')
    .option('--json', 'print JSON')
    .action((o: Opts, cmd: Command) =>
      withApp(cmd.optsWithGlobals(), e, async (app) => {
        const c = await app.merchants.create({ name: o.name as string, webhookUrl: (o.webhookUrl as string | undefined) ?? null });
        if (o.json) return printJson(e.io, c);
        printRecord(e.io, c);
        e.io.err('Store client_secret and webhook_secret now: they are not shown again.');
      }),
    );

  leaf(m.command('list').description('list merchants'))
    .option('--json', 'print JSON')
    .action((o: Opts, cmd: Command) =>
      withApp(cmd.optsWithGlobals(), e, async (app) => {
        const rows = (await app.merchants.list()).map((x) => ({ client_id: x.clientId, name: x.name, status: x.status, webhook_url: x.webhookUrl, created_at: new Date(x.createdAt).toISOString() }));
        if (o.json) return printJson(e.io, rows);
        printTable(e.io, rows, ['client_id', 'name', 'status', 'webhook_url', 'created_at']);
      }),
    );

  leaf(m.command('rotate-secret <client_id>').description('issue a new client secret; the old one stops working at once'))
    .option('--json', 'print JSON')
    .action((id: string, o: Opts, cmd: Command) =>
      withApp(cmd.optsWithGlobals(), e, async (app) => {
        const r = await app.merchants.rotateSecret(id);
        if (o.json) return printJson(e.io, r);
        printRecord(e.io, r);
      }),
    );

  leaf(m.command('rotate-webhook-secret <client_id>').description('new webhook secret; the old one keeps signing during the grace period'))
    .option('--json', 'print JSON')
    .action((id: string, o: Opts, cmd: Command) =>
      withApp(cmd.optsWithGlobals(), e, async (app) => {
        const r = await app.merchants.rotateWebhookSecret(id);
        if (o.json) return printJson(e.io, r);
        printRecord(e.io, r);
      }),
    );

  leaf(m.command('revoke <client_id>').description('revoke a merchant: its credentials stop working'))
    .action((id: string, _o: Opts, cmd: Command) =>
      withApp(cmd.optsWithGlobals(), e, async (app) => {
        await app.merchants.revoke(id);
        e.io.out(`revoked ${id}`);
      }),
    );

  leaf(m.command('set-webhook <client_id>').description('set (or with --clear remove) the webhook URL'))
    .option('--url <url>', 'webhook URL (https, or http to loopback)')
    .option('--clear', 'remove the webhook URL')
    .action((id: string, o: Opts, cmd: Command) =>
      withApp(cmd.optsWithGlobals(), e, async (app) => {
        if (!o.url && !o.clear) cmd.error('error: give --url <url> or --clear', { exitCode: 2 });
        const r = await app.merchants.setWebhook(id, o.clear ? null : (o.url as string));
        e.io.out(`webhook_url of ${id}: ${r.webhookUrl ?? '(none)'}`);
      }),
    );
}
