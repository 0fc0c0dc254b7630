import { createCredentialCheck } from './auth.ts';
import { merchantRecords, type MerchantRecordDeps } from './records.ts';
import { merchantWebhooks } from './webhooks.ts';

export type { Actor, IssuedCredentials, Merchant } from './row.ts';

export interface MerchantServiceDeps extends MerchantRecordDeps {
  /** How long the previous webhook secret keeps signing after a rotation, seconds. */
  rotationGraceSeconds: number;
}

/**
 * Merchants: records (records.ts), API credential checks with their cache
 * (auth.ts), webhook endpoint and secrets (webhooks.ts). A change made
 * here drops that merchant's cached credentials at once.
 */
export function createMerchantService(deps: MerchantServiceDeps) {
  const credentials = createCredentialCheck(deps);
  return {
    ...merchantRecords(deps, credentials.forget),
    ...merchantWebhooks(deps, credentials.forget),
    authenticate: credentials.authenticate,
  };
}

export type MerchantService = ReturnType<typeof createMerchantService>;
