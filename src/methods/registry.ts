import type { Config } from '../config/read.ts';
import type { Db } from '../db/open.ts';
import type { Clock } from '../domain/ports.ts';
import type { MethodDescriptor, MethodSilence, MethodSourceDeps } from './method.ts';
import type { PaymentSource } from './source.ts';
import { evmMethods } from './evm/method.ts';
import { solanaMethods } from './solana/method.ts';
import { tronMethods } from './tron/method.ts';
import { upiMethod } from './upi/method.ts';

/**
 * Every method payd ships, in the order the API document and error messages list them. A new
 * family is one line here; a family with a token table lists one method per row.
 */
export const BUILTIN_METHODS: readonly MethodDescriptor[] = [upiMethod, ...tronMethods, ...solanaMethods, ...evmMethods()];

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

/** The silence watches of the configured methods that have one (MethodDescriptor.silence). */
export function createSilences(config: Config, methods: MethodRegistry, deps: { db: Db; clock: Clock }): MethodSilence[] {
  const out: MethodSilence[] = [];
  for (const m of methods.list) {
    const section = config.methods[m.id];
    const watch = section && m.silence?.(section, deps);
    if (watch) out.push(watch);
  }
  return out;
}

/** What the configured methods warn about at start (MethodDescriptor.warnings). */
export function startupWarnings(config: Config, methods: MethodRegistry): string[] {
  return methods.list.flatMap((m) => (config.methods[m.id] && m.warnings ? m.warnings(config.methods[m.id]) : []));
}

/** The stablecoin pegs the methods declare, by unit ("USDC" → "USD"): what pricing quotes 1:1 unless turned off. */
export function pricingPegs(methods: MethodRegistry): Record<string, string> {
  const pegs: Record<string, string> = {};
  for (const m of methods.list) {
    const peg = m.pricing?.peg;
    if (peg === undefined) continue;
    if (pegs[m.rules.unit] !== undefined && pegs[m.rules.unit] !== peg) throw new Error(`${m.rules.unit} is pegged to both ${pegs[m.rules.unit]} and ${peg}`);
    pegs[m.rules.unit] = peg;
  }
  return pegs;
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
