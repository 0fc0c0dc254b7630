import type { Command } from 'commander';
import { withApp, type CliEnv } from '../context.ts';
import { printJson, printTable } from '../output.ts';
import { leaf, positiveInt, type Opts } from './leaf.ts';

export function paymentCommands(program: Command, e: CliEnv): void {
  const p = program.command('payments').description('payments seen by the sources');

  leaf(p.command('list').description('recorded payments, newest first'))
    .option('--unmatched', 'only payments that settled nothing (wrong amount, late, under-paid…)')
    .option('--rejected', 'observations refused before becoming payments (forged or unparseable mail…)')
    .option('--limit <n>', 'how many', positiveInt, 50)
    .option('--json', 'print JSON')
    .action((o: Opts, cmd: Command) =>
      withApp(cmd.optsWithGlobals(), e, async (app) => {
        if (o.rejected) {
          const rows = await app.payments.rejections(o.limit as number);
          if (o.json) return printJson(e.io, rows);
          return printTable(e.io, rows, ['ref', 'source', 'method', 'reason', 'observed_at']);
        }
        const rows = await app.payments.list({ unmatched: Boolean(o.unmatched), limit: o.limit as number });
        if (o.json) return printJson(e.io, rows);
        printTable(e.io, rows, ['payment_id', 'method', 'tx_ref', 'amount', 'status', 'reason', 'intent_id', 'source', 'observed_at']);
      }),
    );
}
