import * as v from 'valibot';
import { isSolanaAddress } from '../../config/addresses.ts';
import { chainMaxLag, commitment, endpointsAlone, httpUrl, lagOverPoll, methodCommon, seconds, solanaEndpointList, wsUrl } from '../../config/parts.ts';
import type { Resolved } from '../../config/secret.ts';

/** USDT's mint on Solana mainnet: the default `mint`. */
export const USDT_SPL_MINT = 'Es9vMFrzaCERmJfrF4H2FYD4KCoNkY11McCe8BenwNYB';

/** The `methods.SOL` and `methods.USDT_SOL` config sections. */

const solanaCommon = {
  ...methodCommon,
  wallet: v.pipe(v.string(), v.check(isSolanaAddress, 'expected a Solana public key (base58)')),
  /** One JSON-RPC URL (default https://api.mainnet-beta.solana.com); or `endpoints`. */
  rpcUrl: v.optional(httpUrl),
  endpoints: solanaEndpointList,
  wsUrl: v.optional(wsUrl, null),
  commitment,
  pollSeconds: seconds(10),
  /** /readyz 503 when the source is this far behind the RPC's slot at the commitment. */
  maxLagSeconds: chainMaxLag,
};

const SolFields = v.strictObject(solanaCommon);
export const SolConfig = v.pipe(SolFields, endpointsAlone<v.InferOutput<typeof SolFields>>(['rpcUrl']), ...lagOverPoll<v.InferOutput<typeof SolFields>>());
const UsdtSolFields = v.strictObject({
  ...solanaCommon,
  mint: v.optional(
    v.pipe(v.string(), v.check(isSolanaAddress, 'expected a Solana mint address (base58)')),
    USDT_SPL_MINT,
  ),
});
export const UsdtSolConfig = v.pipe(UsdtSolFields, endpointsAlone<v.InferOutput<typeof UsdtSolFields>>(['rpcUrl']), ...lagOverPoll<v.InferOutput<typeof UsdtSolFields>>());

/** A section as written (secrets still references); the Section types are resolved (secrets read), what sources get. */
export type SolMethodConfig = v.InferOutput<typeof SolConfig>;
export type UsdtSolMethodConfig = v.InferOutput<typeof UsdtSolConfig>;
export type SolSection = Resolved<SolMethodConfig>;
export type UsdtSolSection = Resolved<UsdtSolMethodConfig>;
