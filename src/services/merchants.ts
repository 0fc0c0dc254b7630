import { createCredentialCheck } from './merchant-auth.ts';
import type { Db } from '../db/open.ts';
import type { Clock, Random } from '../domain/ports.ts';
import type { Keyring } from './keys.ts';
import { merchantRecords } from './merchant-records.ts';
import { merchantWebhooks } from './merchant-webhooks.ts';

export type { Actor, IssuedCredentials, Merchant } from './merchant-row.ts';

export interface MerchantServiceDeps {
  db: Db;
  /** The master key, resolved (and checked against the database) at first use. */
  keys: Keyring;
  clock: Clock;
  random: Random;
  livemode: boolean;
  allowInsecureUrls: boolean;
  /** Webhooks may target loopback (webhooks.allowLoopback; the sandbox). */
  allowLoopback: boolean;
  /** How long the previous webhook secret keeps signing after a rotation, seconds. */
  rotationGraceSeconds: number;
}

/**
 * Merchants: records (merchant-records.ts), API credential checks with their cache
 * (merchant-auth.ts), webhook endpoint and secrets (merchant-webhooks.ts). A change made
 * here drops that merchant's cached credentials at once.
 */
export function createMerchantService(d: MerchantServiceDeps) {
  const credentials = createCredentialCheck(d);
  return {
    ...merchantRecords(d, credentials.forget),
    ...merchantWebhooks(d, credentials.forget),
    authenticate: credentials.authenticate,
  };
}

export type MerchantService = ReturnType<typeof createMerchantService>;
