import { methodPolicy, type Config, type MethodAmounts } from '../config/read.ts';
import { DEFAULT_MAX_OFFSET_STEPS, DEFAULT_MERCHANT_SHARE_PERCENT, DEFAULT_SURCHARGE_BASIS_POINTS, type Method } from '../domain/methods.ts';
import { DEFAULT_POLICY, type PaymentPolicy } from '../domain/payment-policy.ts';
import type { MethodRegistry } from '../methods/registry.ts';
import type { MethodDeposit } from '../services/intents/inputs.ts';

/** Receiving settings per enabled method, from its config section and descriptor; in the sandbox every method is on. */
export function methodDeposits(config: Config, sandbox: boolean, methods: MethodRegistry): Partial<Record<Method, MethodDeposit>> {
  const out: Partial<Record<Method, MethodDeposit>> = {};
  const payeeName = payeeNameOf(config, methods);
  for (const method of methods.list) {
    let amounts: MethodAmounts | undefined = config.amounts[method.id];
    if (sandbox) {
      const receiver = method.sandbox.receiver;
      amounts = amounts ? { ...amounts, receiver } : { receiver, minMinor: null, maxMinor: null, stepMinor: method.rules.amountStep, maxOffsetSteps: DEFAULT_MAX_OFFSET_STEPS, surchargeBasisPoints: DEFAULT_SURCHARGE_BASIS_POINTS, merchantSharePercent: DEFAULT_MERCHANT_SHARE_PERCENT, roundUnitMinor: method.rules.roundUnitMinor };
    }
    if (!amounts) continue;
    out[method.id] = { method, amounts, payeeName, token: method.token?.(config.methods[method.id]) };
  }
  return out;
}

/** Each method's payment policy: its config section's. */
export function methodPolicies(config: Config, deposits: Partial<Record<Method, MethodDeposit>>, decimalsOf: (method: Method) => number): (m: Method) => PaymentPolicy {
  // Sandbox methods without a config section get the defaults over their sandbox amounts.
  return (m: Method) => config.policies[m] ?? (deposits[m] ? methodPolicy(m, decimalsOf(m), {}, deposits[m].amounts) : DEFAULT_POLICY);
}

/** The payee name payment links and the checkout show: the first configured method's that names one (UPI's payeeName), else ''. */
export function payeeNameOf(config: Config, methods: MethodRegistry): string {
  for (const m of methods.list) {
    const section = config.methods[m.id];
    if (section && m.payeeName) return m.payeeName(section);
  }
  return '';
}

/** methods.<M>.maxLagSeconds in ms, for a source that feeds a configured method (the sandbox's has no limit). */
export function lagLimit(config: Config, method: string | undefined): number | undefined {
  const section = method ? (config.methods as Record<string, { maxLagSeconds?: number } | undefined>)[method] : undefined;
  return section?.maxLagSeconds === undefined ? undefined : section.maxLagSeconds * 1000;
}
