/**
 * The sandbox's simulated source, for the composition root and the operator's `sandbox pay`. Kept
 * out of registry.ts: it reads the database (kysely), which `payd --help` must not load.
 */
export { createSandboxSource, type SandboxSource } from './sandbox/source.ts';
