import { InvalidArgumentError, type Command } from 'commander';
import { PaydError } from '../../domain/errors.ts';
import { formatMinor, formatMinorFixed } from '../../domain/money.ts';
import { builtinMethods } from '../../methods/registry.ts';
import { confirmed, withApp, type CliEnv } from '../context.ts';
import { printJson, printRecord, printTable } from '../output.ts';
import { leaf, positiveInt, type Opts } from './leaf.ts';

const STATUSES = ['pending', 'settled', 'expired', 'canceled'];
const choice = (allowed: string[]) => (v: string) => {
  if (!allowed.includes(v)) throw new InvalidArgumentError(`expected one of ${allowed.join(', ')}`);
  return v;
};
const method = choice([...builtinMethods.ids]);

export function intentCommands(program: Command, env: CliEnv): void {
  const i = program.command('intents').description('inspect and reconcile payment intents');

  leaf(i.command('list').description('list intents, newest first'))
    .option('--status <status>', 'pending | settled | expired | canceled', choice(STATUSES))
    .option('--currency <method>', builtinMethods.ids.join(' | '), method)
    .option('--limit <n>', 'how many', positiveInt, 50)
    .option('--json', 'print JSON')
    .action((o: Opts, cmd: Command) =>
      withApp(cmd.optsWithGlobals(), env, async (app) => {
        const rows = await app.intents.list({ status: o.status as string, currency: o.currency as string, limit: o.limit as number });
        if (o.json) return printJson(env.io, rows);
        printTable(env.io, rows, ['intent_id', 'status', 'currency', 'amount', 'pay_amount', 'order_id', 'created_at', 'transaction_hash']);
      }),
    );

  leaf(i.command('show <intent_id>').description('one intent with its payments and webhook events'))
    .option('--json', 'print JSON')
    .action((id: string, o: Opts, cmd: Command) =>
      withApp(cmd.optsWithGlobals(), env, async (app) => {
        const intent = await app.intents.get(id);
        const payments = await app.payments.forIntent(intent.intent_id);
        const events = await app.events.forIntent(intent.intent_id);
        if (o.json) return printJson(env.io, { ...intent, payments, events });
        printRecord(env.io, intent);
        env.io.out('\nPayments:');
        printTable(env.io, payments, ['payment_id', 'tx_ref', 'amount', 'status', 'source', 'observed_at']);
        env.io.out('\nWebhook events:');
        printTable(env.io, events, ['event_id', 'type', 'status', 'attempts', 'last_error']);
      }, { id }),
    );

  leaf(i.command('cancel <intent_id>').description('cancel a pending intent (sends intent.canceled; its pay amount stays reserved)'))
    .option('--json', 'print JSON')
    .action((id: string, o: Opts, cmd: Command) =>
      withApp(cmd.optsWithGlobals(), env, async (app) => {
        const intent = await app.cancels.cancel(id, { actor: 'cli' });
        if (o.json) return printJson(env.io, intent);
        env.io.out(`canceled ${intent.intent_id} at ${intent.canceled_at}`);
      }, { id }),
    );

  leaf(i.command('settle <intent_id>').description('settle a pending intent by hand (audited; sends payment.success; asks first on a terminal)'))
    .requiredOption('--tx <ref>', 'the transaction reference (UTR, tx hash, signature)')
    .option('--note <text>', 'why (kept in the audit log)')
    .option('--accept-difference', 'settle even though the recorded payment is short of (or above) what the intent is due; payment.success then carries underpaid_by (or overpaid_by)')
    .option('--yes', 'do not ask for confirmation (a difference still needs --accept-difference)')
    .action((id: string, o: Opts, cmd: Command) =>
      withApp(cmd.optsWithGlobals(), env, async (app) => {
        // Only to word the question; the settlement itself is the one service call below, which checks the difference again.
        const preview = await app.manualSettlement.preview({ intentId: id, txRef: String(o.tx) });
        const decimals = app.methods.of(preview.intent.method).rules.decimals;
        const amount = (minor: bigint) => `${formatMinorFixed(minor < 0n ? -minor : minor, decimals)} ${preview.intent.method}`;
        const diff = preview.differenceMinor;
        const differs = diff !== 0n ? `a payment of ${amount(preview.amountMinor)}, ${amount(diff)} ${diff < 0n ? 'less' : 'more'} than the ${amount(preview.dueMinor)} it is due` : null;
        let acceptDifference = Boolean(o.acceptDifference);
        if (!o.yes && env.interactive) {
          const question = differs
            ? `Settle intent ${id} (order ${preview.intent.orderId}) with ${differs}? The merchant gets payment.success with ${diff < 0n ? 'underpaid_by' : 'overpaid_by'} ${amount(diff)}.`
            : `Settle ${preview.intent.method} ${formatMinor(preview.amountMinor, decimals)} (order ${preview.intent.orderId}) with ${preview.txRef}? The merchant gets payment.success.`;
          if (!(await confirmed(env, o.yes, question))) throw new PaydError('CONFLICT', 'not settled: not confirmed');
          acceptDifference = true;
        } else if (differs && !acceptDifference) {
          throw new PaydError('CONFLICT', `not settled: ${preview.txRef} is ${differs}; to settle the intent with it anyway, add --accept-difference`);
        }
        const r = await app.manualSettlement.settle({ intentId: id, txRef: String(o.tx), note: o.note as string | undefined, acceptDifference });
        env.io.out(`settled ${r.intent_id} with ${r.tx_ref}${r.linked ? ` (linked the recorded payment ${r.payment_id})` : ''}; payment.success queued`);
      }, { id }),
    );
}
