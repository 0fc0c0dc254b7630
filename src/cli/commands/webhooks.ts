import { InvalidArgumentError, type Command } from 'commander';
import { PaydError } from '../../domain/errors.ts';
import { withApp, type CliEnv } from '../context.ts';
import { printJson, printRecord, printTable } from '../output.ts';
import { leaf, positiveInt, type Opts } from './leaf.ts';

const STATUSES = ['pending', 'delivered', 'failed', 'skipped'];

export function webhookCommands(program: Command, env: CliEnv): void {
  const w = program.command('webhooks').description('the webhook outbox: inspect, replay, test');

  leaf(w.command('list').description('webhook events, newest first'))
    .option('--status <status>', STATUSES.join(' | '), (v: string) => {
      if (!STATUSES.includes(v)) throw new InvalidArgumentError(`expected one of ${STATUSES.join(', ')}`);
      return v;
    })
    .option('--limit <n>', 'how many', positiveInt, 50)
    .option('--json', 'print JSON')
    .action((o: Opts, cmd: Command) =>
      withApp(cmd.optsWithGlobals(), env, async (app) => {
        const rows = await app.events.list({ status: o.status as string, limit: o.limit as number });
        if (o.json) return printJson(env.io, rows);
        printTable(env.io, rows, ['event_id', 'type', 'status', 'attempts', 'intent_id', 'created_at', 'last_error']);
      }),
    );

  leaf(w.command('show <event_id>').description('one event: body and every delivery attempt'))
    .option('--json', 'print JSON')
    .action((id: string, o: Opts, cmd: Command) =>
      withApp(cmd.optsWithGlobals(), env, async (app) => {
        const ev = await app.events.show(id);
        if (o.json) return printJson(env.io, ev);
        const { attempts_log, ...rest } = ev;
        printRecord(env.io, rest);
        env.io.out('\nAttempts:');
        printTable(env.io, attempts_log, ['attempt', 'at', 'status_code', 'duration_ms', 'error']);
      }, { id }),
    );

  leaf(w.command('replay [event_id]').description('deliver an event again (same webhook-id); --failed for every failed one'))
    .option('--failed', 'replay every failed event')
    .action((id: string | undefined, o: Opts, cmd: Command) => {
      if (!id === !o.failed) cmd.error('error: give an event id or --failed (not both)', { exitCode: 2 });
      return withApp(cmd.optsWithGlobals(), env, async (app) => {
        const ids = await app.events.replay(id ? { eventId: id } : { failed: true });
        env.io.out(`queued ${ids.length} event(s) for delivery${ids.length ? ': ' + ids.join(', ') : ''}`);
      }, { id });
    });

  leaf(w.command('test <client_id>').description("send a signed webhook.test event to the merchant's URL now"))
    .option('--json', 'print JSON')
    .action((clientId: string, o: Opts, cmd: Command) =>
      withApp(cmd.optsWithGlobals(), env, async (app) => {
        const r = await app.actions.sendTestWebhook(clientId);
        if (o.json) printJson(env.io, r.event);
        if (!r.delivered) throw new PaydError('UPSTREAM', `not delivered: ${r.event.last_error ?? r.event.status}`);
        if (!o.json) env.io.out(`delivered ${r.event.event_id} to ${r.url}`);
      }, { id: clientId }),
    );
}
