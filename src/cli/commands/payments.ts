import type { Command } from 'commander';
import { withApp, type CliEnv } from '../context.ts';
import { printJson, printTable } from '../output.ts';
import { formatMinor } from '../../domain/money.ts';
import { candidatesText, resolveCommand } from '../../domain/notify/text.ts';
import { leaf, positiveInt, type Opts } from './leaf.ts';

export function paymentCommands(program: Command, env: CliEnv): void {
  const p = program.command('payments').description('payments seen by the sources');

  leaf(p.command('list').description('recorded payments, newest first'))
    .option('--unmatched', 'only payments that settled nothing (wrong amount, late, under-paid…)')
    .option('--rejected', 'observations refused before becoming payments (forged or unparseable mail…)')
    .option('--held', 'payments attributed to an intent but not credited (late, short, to a canceled or settled intent): accept or refund them')
    .option('--limit <n>', 'how many', positiveInt, 50)
    .option('--json', 'print JSON')
    .action((o: Opts, cmd: Command) =>
      withApp(cmd.optsWithGlobals(), env, async (app) => {
        if (o.rejected) {
          const rows = await app.payments.rejections(o.limit as number);
          if (o.json) return printJson(env.io, rows);
          return printTable(env.io, rows, ['ref', 'source', 'method', 'reason', 'observed_at']);
        }
        if (o.held) {
          const { items } = await app.heldPayments.listPayments({ status: 'held', limit: o.limit as number });
          const rows = items.map((r) => {
            const decimals = app.methods.of(r.method).rules.decimals;
            return { transaction_hash: r.transactionHash, order_id: r.orderId, intent_id: r.intentId, merchant_id: r.merchantId, method: r.method, amount: formatMinor(r.amount, decimals), asked: formatMinor(r.payAmount, decimals), reason: r.reason, received_at: new Date(r.receivedAt).toISOString() };
          });
          if (o.json) return printJson(env.io, rows);
          return printTable(env.io, rows, ['transaction_hash', 'order_id', 'intent_id', 'method', 'amount', 'asked', 'reason', 'received_at']);
        }
        if (o.unmatched) {
          const rows = await app.payments.unmatched(o.limit as number);
          if (o.json) return printJson(env.io, rows.map((r) => ({ ...r, candidates: r.candidates.map((c) => ({ intent_id: c.intentId, order_id: c.orderId, status: c.status, asked: formatMinor(c.payAmountMinor, app.methods.of(r.method).rules.decimals) })) })));
          const show = (method: string, minor: bigint) => formatMinor(minor, app.methods.of(method).rules.decimals);
          printTable(
            env.io,
            rows.map((r) => ({ ...r, candidates: r.candidates.length ? candidatesText(show, r.method, r.candidates) : '(no order asked a nearby amount)' })),
            ['payment_id', 'method', 'tx_ref', 'amount', 'reason', 'candidates', 'observed_at'],
          );
          if (rows.length > 0) env.io.out(`\nTo settle one on the order it was meant for: ${resolveCommand('<tx_ref>')}`);
          return;
        }
        const rows = await app.payments.list({ limit: o.limit as number });
        if (o.json) return printJson(env.io, rows);
        printTable(env.io, rows, ['payment_id', 'method', 'tx_ref', 'amount', 'status', 'reason', 'intent_id', 'source', 'observed_at']);
      }),
    );

  leaf(p.command('accept <tx>').description('accept a held payment: its intent settles with it (payment.success, "accepted": true; audited)'))
    .requiredOption('--intent <id>', 'the intent it is held for')
    .option('--json', 'print JSON')
    .action((tx: string, o: Opts, cmd: Command) =>
      withApp(cmd.optsWithGlobals(), env, async (app) => {
        const view = await app.heldPayments.acceptPayment({ intentId: o.intent as string, transactionHash: tx, actor: 'cli' });
        if (o.json) return printJson(env.io, view);
        env.io.out(`intent ${view.intent_id} settled by ${tx} (accepted)`);
      }),
    );

  // As the API's …/refunded: the console's Mark refunded has its CLI command (no console-only power).
  leaf(p.command('refunded <tx>').description('record that a held payment was returned to the payer (payment.refunded; payd moves no money; audited)'))
    .requiredOption('--intent <id>', 'the intent it is held for')
    .option('--json', 'print JSON')
    .action((tx: string, o: Opts, cmd: Command) =>
      withApp(cmd.optsWithGlobals(), env, async (app) => {
        const view = await app.heldPayments.markRefunded({ intentId: o.intent as string, transactionHash: tx, actor: 'cli' });
        if (o.json) return printJson(env.io, view);
        env.io.out(`payment ${tx} of intent ${view.intent_id} marked refunded`);
      }),
    );
}
