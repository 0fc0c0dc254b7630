import { builtinMethods, type MethodRegistry } from '../registry.ts';

/** Fixed, well-formed receiving addresses for the sandbox (no one holds their keys), per method. */
export function sandboxReceivers(methods: MethodRegistry = builtinMethods): Record<string, string> {
  return Object.fromEntries(methods.list.map((m) => [m.id, m.sandbox.receiver]));
}
