import * as v from 'valibot';
import { chainMaxLag, confirmationsWithinEndpoints, endpointsAlone, httpUrl, keyInUrlEndpointList, lagOverPoll, methodCommon, num, seconds } from '../../config/parts.ts';
import type { Resolved } from '../../config/secret.ts';
import { isEvmAddress } from './address.ts';
import type { EvmCurrency } from './chains.ts';

const evmAddress = v.pipe(v.string(), v.check(isEvmAddress, 'expected an EVM address (0x and 40 hex digits; mixed case must be a correct EIP-55 checksum)'));
const count = (min: number, max: number) => v.pipe(num(), v.integer('expected an integer'), v.minValue(min), v.maxValue(max));

/**
 * The `methods.<TOKEN>_<CHAIN>` section of one EVM currency. Sections of one chain that list
 * the same endpoints share one scan (scan.ts): one `eth_getLogs` per poll covers their tokens.
 */
export function evmSectionSchema(currency: EvmCurrency) {
  const fields = v.strictObject({
    ...methodCommon,
    /** The receiving address; the same one may serve every EVM chain. */
    address: evmAddress,
    /** One JSON-RPC endpoint (default: the chain's public one); or `endpoints`. A key goes at `{apiKey}` in the url. */
    rpcUrl: v.optional(httpUrl),
    endpoints: keyInUrlEndpointList,
    /** The token contract (default: the mainnet one) and its decimals. */
    contract: v.optional(evmAddress, currency.token.contract),
    decimals: v.optional(count(0, 36), currency.token.decimals),
    /** The chain id the endpoints must report (default: the chain's): a wrong network is refused at start. */
    chainId: v.optional(count(1, Number.MAX_SAFE_INTEGER), currency.chain.chainId),
    /**
     * `endpoints`: how many endpoints must hold a Transfer log alike, in a block each calls final,
     * before it moves money (default 2 where two or more are configured, else 1).
     * `blocks`: settle this many blocks under the newest instead of at the node's `finalized` block.
     */
    confirmations: v.optional(v.strictObject({ endpoints: v.optional(count(1, 100)), blocks: v.optional(count(1, 100_000)) })),
    /** Never ask one `eth_getLogs` for more blocks than this (a provider's documented cap). */
    maxBlockRange: v.optional(count(1, 1_000_000)),
    pollSeconds: seconds(Math.max(5, currency.chain.blockSeconds)),
    /** A first start (no checkpoint) scans this many blocks under the final one. */
    backfillBlocks: v.optional(count(0, 10_000_000), Math.ceil(3600 / currency.chain.blockSeconds)),
    /** /readyz 503 when the scan is this far behind the chain's final block. */
    maxLagSeconds: chainMaxLag,
  });
  type Fields = v.InferOutput<typeof fields>;
  return v.pipe(
    fields,
    endpointsAlone<Fields>(['rpcUrl']),
    confirmationsWithinEndpoints<Fields>(),
    ...lagOverPoll<Fields>(),
  );
}

export type EvmMethodConfig = v.InferOutput<ReturnType<typeof evmSectionSchema>>;
export type EvmSection = Resolved<EvmMethodConfig>;
