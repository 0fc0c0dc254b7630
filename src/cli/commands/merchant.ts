import type { Command } from 'commander';
import { PaydError } from '../../domain/errors.ts';
import { confirmed, withApp, type CliEnv } from '../context.ts';
import { printJson, printRecord, printTable } from '../output.ts';
import { duration, formatDuration, leaf, type Opts } from './leaf.ts';

/** Long enough to deploy a new key, short enough that a leaked old key dies soon. */
const DEFAULT_SECRET_GRACE_SECONDS = 600;

export function merchantCommands(program: Command, env: CliEnv): void {
  const m = program.command('merchant').description('issue and manage merchant credentials');

  leaf(m.command('create').description('create a merchant; prints its secrets once'))
    .requiredOption('--name <name>', 'merchant name')
    .option('--webhook-url <url>', 'where payment.success webhooks are sent')
    .option('--json', 'print JSON')
    .action((o: Opts, cmd: Command) =>
      withApp(cmd.optsWithGlobals(), env, async (app) => {
        const c = await app.merchants.create({ name: o.name as string, webhookUrl: (o.webhookUrl as string | undefined) ?? null });
        if (o.json) return printJson(env.io, c);
        printRecord(env.io, c);
        env.io.err('Store client_secret and webhook_secret now: they are not shown again.');
      }, { creates: true, beginsLive: true }),
    );

  leaf(m.command('list').description('list merchants'))
    .option('--json', 'print JSON')
    .action((o: Opts, cmd: Command) =>
      withApp(cmd.optsWithGlobals(), env, async (app) => {
        const rows = (await app.merchants.list()).map((x) => ({ client_id: x.clientId, name: x.name, status: x.status, webhook_url: x.webhookUrl, created_at: new Date(x.createdAt).toISOString() }));
        if (o.json) return printJson(env.io, rows);
        printTable(env.io, rows, ['client_id', 'name', 'status', 'webhook_url', 'created_at']);
      }),
    );

  leaf(m.command('rotate-secret <client_id>').description(`issue a new client secret; the old one keeps working for --grace (default ${formatDuration(DEFAULT_SECRET_GRACE_SECONDS)})`))
    .option('--grace <duration>', `how long the old secret keeps working: 0, 90s, 10m, 24h, 7d (default ${formatDuration(DEFAULT_SECRET_GRACE_SECONDS)})`, duration)
    .option('--json', 'print JSON')
    .action((id: string, o: Opts, cmd: Command) =>
      withApp(cmd.optsWithGlobals(), env, async (app) => {
        const grace = (o.grace as number | undefined) ?? DEFAULT_SECRET_GRACE_SECONDS;
        const r = await app.merchants.rotateSecret(id, grace);
        if (o.json) return printJson(env.io, r);
        printRecord(env.io, r);
        env.io.err(
          r.previous_valid_until
            ? `The old client secret keeps working until ${r.previous_valid_until} (${formatDuration(grace)}); deploy the new one before then.`
            : 'The old client secret stopped working now.',
        );
      }, { id }),
    );

  leaf(m.command('rotate-webhook-secret <client_id>').description('new webhook secret; the old one keeps signing during the grace period'))
    .option('--json', 'print JSON')
    .action((id: string, o: Opts, cmd: Command) =>
      withApp(cmd.optsWithGlobals(), env, async (app) => {
        const r = await app.merchants.rotateWebhookSecret(id);
        if (o.json) return printJson(env.io, r);
        printRecord(env.io, r);
      }, { id }),
    );

  leaf(m.command('revoke <client_id>').description('revoke a merchant: its credentials stop working (asks first on a terminal)'))
    .option('--yes', 'do not ask for confirmation')
    .action((id: string, o: Opts, cmd: Command) =>
      withApp(cmd.optsWithGlobals(), env, async (app) => {
        const merchant = await app.merchants.get(id);
        if (!(await confirmed(env, o.yes, `Revoke ${merchant.name} (${id})? Its API keys stop working and cannot be restored.`))) {
          throw new PaydError('CONFLICT', 'not revoked: not confirmed');
        }
        await app.merchants.revoke(id);
        env.io.out(`revoked ${id}`);
      }, { id }),
    );

  leaf(m.command('set-webhook <client_id>').description('set (or with --clear remove) the webhook URL'))
    .option('--url <url>', 'webhook URL (https, or http to loopback)')
    .option('--clear', 'remove the webhook URL')
    .action((id: string, o: Opts, cmd: Command) => {
      if (!o.url && !o.clear) cmd.error('error: give --url <url> or --clear', { exitCode: 2 });
      return withApp(cmd.optsWithGlobals(), env, async (app) => {
        const r = await app.merchants.setWebhook(id, o.clear ? null : (o.url as string));
        env.io.out(`webhook_url of ${id}: ${r.webhookUrl ?? '(none)'}`);
      }, { id });
    });
}
