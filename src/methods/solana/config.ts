import * as v from 'valibot';
import { isSolanaAddress } from '../../config/addresses.ts';
import { chainConfirmations, chainMaxLag, commitment, confirmationsWithinEndpoints, endpointsAlone, httpUrl, keyInUrlEndpointList, lagOverPoll, methodCommon, seconds, wsUrl } from '../../config/parts.ts';
import type { Resolved } from '../../config/secret.ts';
import { endpointsOf } from '../endpoints.ts';

/** The `methods.SOL` section, and each SPL token's (the same with its `mint`). */

const solanaCommon = {
  ...methodCommon,
  wallet: v.pipe(v.string(), v.check(isSolanaAddress, 'expected a Solana public key (base58)')),
  /** One JSON-RPC URL (default https://api.mainnet-beta.solana.com); or `endpoints`. */
  rpcUrl: v.optional(httpUrl),
  endpoints: keyInUrlEndpointList,
  /** How many endpoints must return a transaction before it settles; default 2 where two or more are configured. */
  confirmations: chainConfirmations,
  wsUrl: v.optional(wsUrl, null),
  commitment,
  pollSeconds: seconds(10),
  /** Deep re-scan: every rescanSeconds, the newest signatures of the last rescanHours are listed again on another endpoint. */
  rescanSeconds: seconds(600),
  rescanHours: seconds(24),
  /** /readyz 503 when the source is this far behind the RPC's slot at the commitment. */
  maxLagSeconds: chainMaxLag,
};

const SolFields = v.strictObject(solanaCommon);
export const SolConfig = v.pipe(SolFields, endpointsAlone<v.InferOutput<typeof SolFields>>(['rpcUrl']), confirmationsWithinEndpoints<v.InferOutput<typeof SolFields>>(), ...lagOverPoll<v.InferOutput<typeof SolFields>>());

const splFields = (defaultMint: string) =>
  v.strictObject({
    ...solanaCommon,
    mint: v.optional(v.pipe(v.string(), v.check(isSolanaAddress, 'expected a Solana mint address (base58)')), defaultMint),
  });
type SplFields = ReturnType<typeof splFields>;

/** An SPL token's section: the Solana keys plus `mint` (default: the token's mainnet mint). */
export const splConfig = (defaultMint: string) =>
  v.pipe(splFields(defaultMint), endpointsAlone<v.InferOutput<SplFields>>(['rpcUrl']), confirmationsWithinEndpoints<v.InferOutput<SplFields>>(), ...lagOverPoll<v.InferOutput<SplFields>>());

/** A section as written (secrets still references); the Section types are resolved (secrets read), what sources get. */
export type SolMethodConfig = v.InferOutput<typeof SolConfig>;
export type SplMethodConfig = v.InferOutput<ReturnType<typeof splConfig>>;
export type SolSection = Resolved<SolMethodConfig>;
export type SplSection = Resolved<SplMethodConfig>;
/** What a Solana source reads: a token's section carries its mint, SOL's none. */
export type SolanaSection = SolSection & { mint?: string };

export const SOLANA_PUBLIC_RPC = 'https://api.mainnet-beta.solana.com';

/** The section's RPC endpoints: `endpoints`, else `rpcUrl`, else the public mainnet RPC. */
export const solanaEndpoints = (section: { endpoints?: Parameters<typeof endpointsOf>[0]['endpoints']; rpcUrl?: string }) => endpointsOf(section, { url: section.rpcUrl, fallback: SOLANA_PUBLIC_RPC });
