import type { Config } from '../config/read.ts';
import type { MethodDescriptor, MethodSourceDeps } from './method.ts';
import type { PaymentSource } from './source.ts';
import { evmMethods } from './evm/method.ts';
import { solMethod, usdtSolMethod } from './solana/method.ts';
import { usdtTrc20Method } from './tron/method.ts';
import { upiMethod } from './upi/method.ts';

/** Every method payd ships, in the order the API document and error messages list them. A new method is one line here. */
export const BUILTIN_METHODS: readonly MethodDescriptor[] = [upiMethod, usdtTrc20Method, usdtSolMethod, solMethod, ...evmMethods()];

/** The methods one payd knows: the built-in ones plus any a caller adds (tests add a test-only method). */
export interface MethodRegistry {
  readonly list: readonly MethodDescriptor[];
  readonly ids: readonly string[];
  get(id: string): MethodDescriptor | undefined;
  /** A method stored on a row: known, or the store holds something this build never wrote. */
  of(id: string): MethodDescriptor;
}

export function methodRegistry(extra: readonly MethodDescriptor[] = []): MethodRegistry {
  const list = [...BUILTIN_METHODS, ...extra];
  const byId = new Map(list.map((m) => [m.id, m]));
  if (byId.size !== list.length) throw new Error('two payment methods share an id');
  return {
    list,
    ids: list.map((m) => m.id),
    get: (id) => byId.get(id),
    of(id) {
      const m = byId.get(id);
      if (!m) throw new Error(`unknown payment method ${JSON.stringify(id)}`);
      return m;
    },
  };
}

/** The built-in methods alone: what a CLI command's help and the shipped API document list. */
export const builtinMethods: MethodRegistry = methodRegistry();

/**
 * One live source per enabled method, built from its config section. Each method's module
 * is imported only when its method is enabled (its descriptor's `loadSource`): @solana/web3.js,
 * imapflow and mailauth cost start-up time and tens of MB each, and most commands need none.
 */
export async function createSources(config: Config, methods: MethodRegistry, deps: MethodSourceDeps): Promise<PaymentSource[]> {
  const sources: PaymentSource[] = [];
  for (const m of methods.list) {
    const section = config.methods[m.id];
    if (section) sources.push(Object.assign(await m.loadSource(section, deps), { method: m.id }));
  }
  return sources;
}
