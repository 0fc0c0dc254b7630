import type { H3Event } from 'h3';
import { header } from './headers.ts';
import type { Awaitable } from '../domain/awaitable.ts';
import { PaydError } from '../domain/errors.ts';
import type { Merchant, MerchantService } from '../services/merchants/index.ts';


/** X-Client-ID + X-Client-Secret → the merchant; 401 when either is missing, 403 for any wrong value (thrown or rejected). */
export function authenticate(event: H3Event, merchants: MerchantService): Awaitable<Merchant> {
  const clientId = header(event, 'x-client-id')?.trim();
  const secret = header(event, 'x-client-secret')?.trim();
  if (!clientId || !secret) throw new PaydError('AUTH_INVALID_HEADERS', 'X-Client-ID and X-Client-Secret headers are required');
  return merchants.authenticate(clientId, secret);
}
