import { PaydError } from '../domain/errors.ts';
import { chosenIntent } from '../domain/intent.ts';
import { parseDecimal } from '../domain/money.ts';
import type { Random } from '../domain/ports.ts';
import type { MethodRegistry } from '../methods/registry.ts';
import type { SandboxSource } from '../methods/sandbox-source.ts';
import type { EventService } from './events/operator.ts';
import type { IntentService } from './intents/index.ts';
import type { MerchantService } from './merchants/index.ts';
import type { createPaymentQueries } from './payments.ts';

/**
 * Operator actions that take several services, each one call for its CLI command; they
 * return the outcome and leave printing (and the exit code) to the CLI.
 */
export function createOperatorActions(deps: { merchants: MerchantService; events: EventService; /** Sends one event now in this process (the webhooks/ dispatcher, above this layer). */ dispatcher: { deliverNow(eventId: string): Promise<void> }; intents: IntentService; payments: Pick<ReturnType<typeof createPaymentQueries>, 'outcomeOf'>; sandboxSource: Pick<SandboxSource, 'simulate' | 'tick'>; methods: MethodRegistry; random: Random; /** How long to wait for another process's attempt, ms (default 15 s: one webhook timeout plus margin). */ waitForOtherMs?: number }) {
  return {
    /** `payd webhooks test`: a signed webhook.test sent now, in this process; the event with its attempt. */
    async sendTestWebhook(clientId: string) {
      const merchant = await deps.merchants.get(clientId);
      if (!merchant.webhookUrl) throw new PaydError('CONFLICT', `merchant ${clientId} has no webhook URL (payd merchant set-webhook ${clientId} --url …)`);
      // The signing secrets first: a command that cannot sign (no master key) refuses before it writes an event.
      await deps.merchants.signingSecrets(clientId);
      const id = await deps.events.enqueueTest(clientId);
      await deps.dispatcher.deliverNow(id);
      let event = await deps.events.show(id);
      // A running leader's dispatcher may have claimed it first (it polls the outbox): then it
      // makes the one attempt a webhook.test gets; its result is the answer.
      const until = Date.now() + (deps.waitForOtherMs ?? 15_000);
      while (event.status === 'pending' && Date.now() < until) {
        await new Promise((r) => setTimeout(r, 100));
        event = await deps.events.show(id);
      }
      return { delivered: event.status === 'delivered', url: merchant.webhookUrl, event };
    },

    /** `payd sandbox pay`: a simulated transfer carried through the sandbox source now; what became of it and the intent afterwards. */
    async sandboxPay(intentId: string, amount?: string) {
      const found = await deps.intents.find(intentId);
      if (!found) throw new PaydError('NOT_FOUND', `no sandbox intent ${intentId}`);
      const intent = chosenIntent(found);
      const method = intent.method;
      const { rules, sandbox } = deps.methods.of(method);
      let amountMinor = intent.payAmountMinor;
      if (amount !== undefined) {
        const parsed = parseDecimal(amount, rules.decimals);
        if (!parsed.ok || parsed.minor <= 0n) throw new PaydError('INVALID_REQUEST', `--amount must be a positive decimal with at most ${rules.decimals} decimals`);
        amountMinor = parsed.minor;
      }
      const txRef = sandbox.txRef(deps.random.bytes(64));
      await deps.sandboxSource.simulate({ method, receiver: intent.receiver, amountMinor, txRef, reference: intent.reference });
      await deps.sandboxSource.tick();
      // A running sandbox daemon may have ingested the transfer first: read what became of it.
      const outcome = await deps.payments.outcomeOf(method, txRef);
      // Whether the merchant hears of it: only a webhook URL is sent events (the feed holds them either way).
      const webhookUrl = (await deps.merchants.get(intent.merchantId)).webhookUrl;
      return { txRef, method, outcome, intent: await deps.intents.get(intentId), webhookUrl };
    },
  };
}

export type OperatorActions = ReturnType<typeof createOperatorActions>;
