import { createCredentialCheck } from './merchant-auth.ts';
import { merchantRecords, type MerchantRecordDeps } from './merchant-records.ts';
import { merchantWebhooks } from './merchant-webhooks.ts';

export type { Actor, IssuedCredentials, Merchant } from './merchant-row.ts';

export interface MerchantServiceDeps extends MerchantRecordDeps {
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
