import * as v from 'valibot';
import { isTronAddress } from '../../config/addresses.ts';
import { chainConfirmations, chainMaxLag, confirmationsWithinEndpoints, endpointList, endpointsAlone, httpUrl, lagOverPoll, methodCommon, SecretRef, seconds } from '../../config/parts.ts';
import type { Resolved } from '../../config/secret.ts';

/** USDT's TRC20 contract on TRON mainnet: the default `contract`. */
export const USDT_TRC20_CONTRACT = 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t';

/** The `methods.USDT_TRC20` config section. */

const TronFields = v.strictObject({
  ...methodCommon,
  address: v.pipe(v.string(), v.check(isTronAddress, 'expected a TRON base58check address (T…)')),
  /** One TronGrid-compatible API (default https://api.trongrid.io); or `endpoints`. */
  apiUrl: v.optional(httpUrl),
  apiKey: v.optional(SecretRef),
  endpoints: endpointList,
  /** How many endpoints must show a transfer before it settles; default 2 where two or more are configured. */
  confirmations: chainConfirmations,
  contract: v.optional(
    v.pipe(v.string(), v.check(isTronAddress, 'expected a TRON base58check address (T…)')),
    USDT_TRC20_CONTRACT,
  ),
  pollSeconds: seconds(10),
  /** Deep re-scan: every rescanSeconds, list the last rescanHours again (TronGrid indexes some transfers late). */
  rescanSeconds: seconds(600),
  rescanHours: seconds(24),
  /** /readyz 503 when the source is this far behind the head TronGrid reports. */
  maxLagSeconds: chainMaxLag,
});
export const TronConfig = v.pipe(TronFields, endpointsAlone<v.InferOutput<typeof TronFields>>(['apiUrl', 'apiKey']), confirmationsWithinEndpoints<v.InferOutput<typeof TronFields>>(), ...lagOverPoll<v.InferOutput<typeof TronFields>>());

export type TronMethodConfig = v.InferOutput<typeof TronConfig>;
export type TronSection = Resolved<TronMethodConfig>;
