/**
 * A chain method's upstreams as a list: `endpoints` when configured, else its single URL (and
 * key) as a one-entry list, else the family's public default. Keys are read here, once, when
 * the source is built.
 */
import type { Secret } from '../config/secret.ts';
import type { EndpointSpec } from './upstream-pool.ts';

type Listed = { url: string; apiKey?: Secret; weight: number }[] | undefined;

export function endpointsOf(section: { endpoints?: Listed }, single: { url: string | undefined; apiKey?: Secret; fallback: string }): EndpointSpec[] {
  if (section.endpoints?.length) return section.endpoints.map((e) => ({ url: e.url, weight: e.weight, ...(e.apiKey ? { apiKey: e.apiKey.reveal() } : {}) }));
  return [{ url: single.url ?? single.fallback, weight: 1, ...(single.apiKey ? { apiKey: single.apiKey.reveal() } : {}) }];
}
