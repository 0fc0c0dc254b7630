import type { Config } from '../config/load.ts';
import type { PaymentSource, SourceDeps } from './source.ts';

/** One live source per enabled method, built from its config section. */
export function createSources(config: Config, deps: SourceDeps): PaymentSource[] {
  const sources: PaymentSource[] = [];
  void config;
  void deps;
  return sources;
}
