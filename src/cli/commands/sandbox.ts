import type { Command } from 'commander';
import { withApp, type CliEnv } from '../context.ts';
import { printJson } from '../output.ts';
import { leaf, type Opts } from './leaf.ts';
import { runDaemon } from './serve.ts';

export function sandboxCommands(program: Command, e: CliEnv): void {
  const s = program.command('sandbox').description('simulated payments for integration work (sandbox database only)');

  leaf(s.command('pay <intent_id>').description('make a simulated customer payment for a sandbox intent'))
    .option('--amount <amount>', 'amount paid (default: the exact pay_amount)')
    .option('--json', 'print the intent afterwards as JSON')
    .action((id: string, o: Opts, cmd: Command) =>
      withApp({ ...cmd.optsWithGlobals(), sandbox: true }, e, async (app) => {
        const { txRef, intent: after } = await app.actions.sandboxPay(id, o.amount === undefined ? undefined : String(o.amount));
        if (o.json) return printJson(e.io, after);
        e.io.out(`paid ${txRef}; intent ${id} is ${after.status}`);
      }),
    );
}

export function demoCommand(program: Command, e: CliEnv): void {
  leaf(program.command('demo').description('run a sandbox daemon with a fresh demo merchant (prints its credentials)'))
    .option('--port <port>', 'listen port')
    .action(async (o: Opts, cmd: Command) => {
      await runDaemon({ ...cmd.optsWithGlobals(), sandbox: true }, e, { http: true, workers: true, port: o.port === undefined ? undefined : Number(o.port) }, async (app) => {
        const c = await app.merchants.create({ name: 'Demo shop' });
        const base = app.publicUrl;
        e.io.out(
          [
            '',
            'payd sandbox is starting. Demo merchant (sandbox only; livemode false):',
            `  X-Client-ID:     ${c.client_id}`,
            `  X-Client-Secret: ${c.client_secret}`,
            `  webhook secret:  ${c.webhook_secret}`,
            '',
            'Create an intent:',
            `  curl -s ${base}/api/v1/intents/create-payment -H 'content-type: application/json' \\`,
            `    -H 'X-Client-ID: ${c.client_id}' -H 'X-Client-Secret: ${c.client_secret}' \\`,
            `    -d '{"amount": 499, "currency": "UPI", "order_id": "demo-1"}'`,
            'Pay it (simulated), then fetch it:',
            '  npx payd sandbox pay <intent_id>',
            `  curl -s ${base}/api/v1/intents/<intent_id> -H 'X-Client-ID: ${c.client_id}' -H 'X-Client-Secret: ${c.client_secret}'`,
            '',
          ].join('\n'),
        );
      });
    });
}
