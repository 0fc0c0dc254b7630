/**
 * A chain method's upstreams: each endpoint as configured, the URL its key is put into when it is
 * called, and the name logs and metrics show instead (without the key). The list is `endpoints`
 * when configured, else its single URL (and key) as a one-entry list, else the family's public
 * default. Keys are read here, once, when the source is built.
 */
import type { Secret } from '../config/secret.ts';

/** One configured endpoint, its secret already read. */
export interface EndpointSpec {
  url: string;
  apiKey?: string;
  /** Divides the latency score: weight 2 is preferred over an equally fast weight 1. */
  weight: number;
}

type Listed = { url: string; apiKey?: Secret; weight: number }[] | undefined;

export function endpointsOf(section: { endpoints?: Listed }, single: { url: string | undefined; apiKey?: Secret; fallback: string }): EndpointSpec[] {
  if (section.endpoints?.length) return section.endpoints.map((e) => ({ url: e.url, weight: e.weight, ...(e.apiKey ? { apiKey: e.apiKey.reveal() } : {}) }));
  return [{ url: single.url ?? single.fallback, weight: 1, ...(single.apiKey ? { apiKey: single.apiKey.reveal() } : {}) }];
}

/** Logs and metrics name an endpoint by this: keys live in paths (QuickNode, Alchemy) and queries (Helius), never shown. */
export function redactUrl(url: string): string {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return '(unreadable url)';
  }
  // A long opaque path segment is a token; readable ones (/v2, /rpc, /solana) stay.
  const path = u.pathname
    .split('/')
    .map((seg) => (seg.length >= 16 && /^[A-Za-z0-9_-]+$/.test(seg) && /\d/.test(seg) ? '…' : seg.includes('%7BapiKey%7D') ? '…' : seg))
    .join('/');
  return `${u.protocol}//${u.host}${path === '/' ? '' : path}`;
}

/** The URL to call: a `{apiKey}` placeholder (key in the path or query, as many providers want it) filled in. */
export const callUrl = (e: EndpointSpec): string => (e.apiKey !== undefined && e.url.includes('{apiKey}') ? e.url.split('{apiKey}').join(encodeURIComponent(e.apiKey)) : e.url);
