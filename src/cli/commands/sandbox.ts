import type { Command } from 'commander';
import { PaydError } from '../../domain/errors.ts';
import { resolveCommand } from '../../domain/notify/text.ts';
import { builtinMethods } from '../../methods/registry.ts';
import { withApp, type CliEnv } from '../context.ts';
import { printJson } from '../output.ts';
import { leaf, type Opts } from './leaf.ts';
import { portNumber, runDaemon } from './serve.ts';
import type { App } from '../../app/index.ts';

export function sandboxCommands(program: Command, env: CliEnv): void {
  const s = program.command('sandbox').description('simulated payments for integration work (sandbox database only)');

  leaf(s.command('pay <intent_id>').description('make a simulated customer payment for a sandbox intent; exit 1 when it settled nothing'))
    .option('--amount <amount>', 'amount paid (default: the exact pay_amount)')
    .option('--json', 'print the intent and the payment afterwards as JSON')
    .action((id: string, o: Opts, cmd: Command) =>
      withApp(
        { ...cmd.optsWithGlobals(), sandbox: true },
        env,
        async (app) => {
          const { txRef, method, outcome, intent: after, webhookUrl } = await app.actions.sandboxPay(id, o.amount === undefined ? undefined : String(o.amount));
          const told = webhookUrl ? 'the merchant was sent payment.held' : 'the merchant has no webhook URL, so no payment.held was sent (it is in GET /api/v1/events)';
          if (o.json) printJson(env.io, { intent: after, payment: outcome.kind === 'payment' ? outcome.payment : null, rejected: outcome.kind === 'rejected' ? outcome.reason : null });
          const paid = `${method} ${outcome.kind === 'payment' ? outcome.payment.amount.text : ''}`.trim();
          if (outcome.kind === 'payment' && outcome.payment.status === 'matched' && outcome.payment.intent_id === after.intent_id) {
            if (!o.json) env.io.out(`settled: paid ${paid} with ${txRef}; intent ${id} is ${after.status}`);
            return;
          }
          const why =
            outcome.kind === 'payment' && outcome.payment.status === 'held'
              ? `payment ${txRef} of ${paid} held for intent ${outcome.payment.intent_id} (reason: ${outcome.payment.reason}; ${told}; accept it with payd --sandbox payments accept ${txRef} --intent ${outcome.payment.intent_id})`
              : outcome.kind === 'payment'
              ? `payment ${txRef} of ${paid} kept as unmatched (reason: ${outcome.payment.reason ?? outcome.payment.status}; to settle it on this intent: ${resolveCommand(txRef, id).replace(/^payd /, 'payd --sandbox ')}; the orders it may be for: payd --sandbox payments list --unmatched)`
              : outcome.kind === 'rejected'
                ? `payment ${txRef} rejected (reason: ${outcome.reason}; see payd --sandbox payments list --rejected)`
                : `payment ${txRef} was not processed`;
          throw new PaydError('CONFLICT', `nothing settled: ${why}; intent ${id} is ${after.status}`);
        },
        { id, otherHint: 'sandbox pay pays sandbox intents only (create the intent against the sandbox daemon: payd demo)' },
      ),
    );
}

/** The banner's example: the API document's example method and amount (the first method with one). */
const example = builtinMethods.list.find((m) => m.openapi) ?? builtinMethods.list[0]!;
/** A priced example: a method paid in another currency than rupees (a stablecoin), so the quote shows. */
const pricedMethod = builtinMethods.list.find((m) => m.pricing?.peg) ?? example;
const pricedBody = JSON.stringify({ price: { amount: 1999, currency: 'INR' }, currency: pricedMethod.id, order_id: 'demo-2' }).replace(/[:,]/g, '$& ');
const exampleBody = JSON.stringify({ amount: example.openapi?.example.amount ?? 1, currency: example.id, order_id: 'demo-1' }).replace(/[:,]/g, '$& ');

const bannerLines = (base: string, consoleOrigin: string, c: { client_id: string; client_secret: string; webhook_secret: string; webhook_url: string | null }) => [
  '',
  'payd sandbox is running. Demo merchant (sandbox only; livemode false):',
  `  X-Client-ID:     ${c.client_id}`,
  `  X-Client-Secret: ${c.client_secret}`,
  `  webhook secret:  ${c.webhook_secret}`,
  `  webhook URL:     ${c.webhook_url ?? '(none: payd demo --webhook-url <url>, or payd --sandbox merchant set-webhook <client_id> --url <url>)'}`,
  '',
  'Create an intent:',
  `  curl -s ${base}/api/v1/intents/create-payment -H 'content-type: application/json' \\`,
  `    -H 'X-Client-ID: ${c.client_id}' -H 'X-Client-Secret: ${c.client_secret}' \\`,
  `    -d '${exampleBody}'`,
  'Or price it in rupees, dollars or euros (the sandbox quotes simulated rates, docs/pricing.md):',
  `    -d '${pricedBody}'`,
  'Pay it (simulated), then fetch it:',
  '  npx payd sandbox pay <intent_id>',
  `  curl -s ${base}/api/v1/intents/<intent_id> -H 'X-Client-ID: ${c.client_id}' -H 'X-Client-Secret: ${c.client_secret}'`,
  '',
  'This merchant lives in the sandbox database: admin commands for it take --sandbox,',
  `  e.g. npx payd --sandbox intents list, npx payd --sandbox webhooks list, npx payd --sandbox merchant list`,
  '',
  `The operator console: ${consoleOrigin}/console (a passkey belongs to this address: open it here, not at 127.0.0.1).`,
  `  Invite this browser: npx payd --sandbox console invite --name "my laptop", and open the link it prints.`,
  '',
];

const DEMO_SHOP = 'Demo shop';

/**
 * The demo's merchant: the one an earlier demo made, when it is still active (its intents and
 * console history stay one shop's), with a fresh client secret to print (only its hash is kept);
 * else a new one. A --webhook-url given now replaces the one it had.
 */
async function demoMerchant(merchants: App['merchants'], webhookUrl: string | null) {
  const earlier = (await merchants.list()).find((m) => m.name === DEMO_SHOP && m.status === 'active');
  if (!earlier) return merchants.create({ name: DEMO_SHOP, webhookUrl });
  const shop = webhookUrl === null ? earlier : await merchants.setWebhook(earlier.clientId, webhookUrl);
  const { client_secret } = await merchants.rotateSecret(shop.clientId, 0);
  const [webhook_secret] = await merchants.signingSecrets(shop.clientId);
  return { client_id: shop.clientId, client_secret, webhook_secret: webhook_secret!, webhook_url: shop.webhookUrl };
}

export function demoCommand(program: Command, env: CliEnv): void {
  leaf(program.command('demo').description('run a sandbox daemon with its demo merchant (the same one each run; prints its credentials with a fresh client secret)'))
    .option('--port <port>', 'listen port', portNumber)
    .option('--webhook-url <url>', "the demo merchant's webhook URL")
    .action(async (o: Opts, cmd: Command) => {
      const webhookUrl = (o.webhookUrl as string | undefined) ?? null;
      // The merchant is created only once the port is bound: a busy port leaves nothing behind.
      // The demo turns the console on: a shopkeeper tries it before going live (sandbox data only).
      await runDaemon({ ...cmd.optsWithGlobals(), sandbox: true }, env, { http: true, workers: true, port: o.port as number | undefined, console: true }, undefined, async (app) => {
        const c = await demoMerchant(app.merchants, webhookUrl);
        env.io.out(bannerLines(app.publicUrl, app.consoleOrigin(), c).join('\n'));
      });
    });
}
