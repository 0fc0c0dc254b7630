import type { Config } from '../config/read.ts';
import type { Db } from '../db/open.ts';
import type { Clock, Logger, Random } from '../domain/ports.ts';
import type { MethodRegistry } from '../methods/registry.ts';
import type { PaymentSource } from '../methods/source.ts';
import type { PaydLedger } from '../services/ledger/index.ts';
import type { HttpPost } from '../webhooks/deliver.ts';

/** What createApp (app/index.ts) is built from. */
export interface AppOptions {
  config: Config;
  /** Sandbox: simulated sources, its own database, livemode false. */
  sandbox?: boolean;
  clock: Clock;
  /**
   * On PostgreSQL, correct `clock` by its offset to the database's clock (default true): every
   * node then stamps and compares times alike. Tests that drive time themselves turn it off.
   */
  databaseClock?: boolean;
  random: Random;
  log: Logger;
  /** Outbound webhook POST (tests may wrap it). */
  post?: HttpPost;
  /** Sources to run instead of the configured ones (tests). */
  sources?: (deps: { ledger: PaydLedger; db: Db }) => PaymentSource[] | Promise<PaymentSource[]>;
  /** The methods this payd knows (default: the built-in ones); a test adds its own, parsing the config with the same registry. */
  methods?: MethodRegistry;
  /** Worker lease timing, ms (tests shorten it). */
  lease?: { ttlMs?: number; renewMs?: number; standbyPollMs?: number };
}
