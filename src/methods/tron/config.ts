import * as v from 'valibot';
import { isTronAddress } from '../../config/addresses.ts';
import { chainConfirmations, chainMaxLag, confirmationsWithinEndpoints, endpointList, endpointsAlone, httpUrl, lagOverPoll, methodCommon, SecretRef, seconds } from '../../config/parts.ts';
import type { Resolved, Secret } from '../../config/secret.ts';
import { endpointsOf } from '../endpoints.ts';

/** A TRC20 token's config section (`methods.USDT_TRC20`); `contract` defaults to the token's mainnet contract. */
const tronFields = (defaultContract: string) =>
  v.strictObject({
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
      defaultContract,
    ),
    pollSeconds: seconds(10),
    /** Deep re-scan: every rescanSeconds, list the last rescanHours again (TronGrid indexes some transfers late). */
    rescanSeconds: seconds(600),
    rescanHours: seconds(24),
    /** A transfer no second endpoint lists within this many minutes is recorded as rejected (`unconfirmed_transfer`). */
    unconfirmedMinutes: seconds(30),
    /** /readyz 503 when the source is this far behind the head TronGrid reports. */
    maxLagSeconds: chainMaxLag,
  });
type TronFields = ReturnType<typeof tronFields>;
export const tronConfig = (defaultContract: string) =>
  v.pipe(tronFields(defaultContract), endpointsAlone<v.InferOutput<TronFields>>(['apiUrl', 'apiKey']), confirmationsWithinEndpoints<v.InferOutput<TronFields>>(), ...lagOverPoll<v.InferOutput<TronFields>>());

export type TronMethodConfig = v.InferOutput<ReturnType<typeof tronConfig>>;
export type TronSection = Resolved<TronMethodConfig>;

export const TRONGRID_URL = 'https://api.trongrid.io';

/** The section's TronGrid-compatible endpoints: `endpoints`, else `apiUrl`/`apiKey`, else TronGrid. */
export const tronEndpoints = (section: { endpoints?: Parameters<typeof endpointsOf>[0]['endpoints']; apiUrl?: string; apiKey?: Secret }) =>
  endpointsOf(section, { url: section.apiUrl, apiKey: section.apiKey, fallback: TRONGRID_URL });
