/**
 * A chain method's upstreams as a list: `endpoints` when configured, else the single
 * `apiUrl`/`apiKey` (TRON) or `rpcUrl` (Solana) as a one-entry list, with the public default.
 * Keys are read here, once, when the source is built.
 */
import type { Secret } from '../config/secret.ts';
import type { EndpointSpec } from './upstream-pool.ts';

type Listed = { url: string; apiKey?: Secret; weight: number }[] | undefined;

export const TRONGRID_URL = 'https://api.trongrid.io';
export const SOLANA_PUBLIC_RPC = 'https://api.mainnet-beta.solana.com';

const read = (list: NonNullable<Listed>): EndpointSpec[] =>
  list.map((e) => ({ url: e.url, weight: e.weight, ...(e.apiKey ? { apiKey: e.apiKey.reveal() } : {}) }));

export function tronEndpoints(c: { endpoints?: Listed; apiUrl?: string; apiKey?: Secret }): EndpointSpec[] {
  if (c.endpoints?.length) return read(c.endpoints);
  return [{ url: c.apiUrl ?? TRONGRID_URL, weight: 1, ...(c.apiKey ? { apiKey: c.apiKey.reveal() } : {}) }];
}

export function solanaEndpoints(c: { endpoints?: Listed; rpcUrl?: string }): EndpointSpec[] {
  if (c.endpoints?.length) return read(c.endpoints);
  return [{ url: c.rpcUrl ?? SOLANA_PUBLIC_RPC, weight: 1 }];
}
