import { BlockList, isIP } from 'node:net';

/** An IPv4 client on a dual-stack socket shows up as ::ffff:a.b.c.d. */
const V4_MAPPED = /^::ffff:(\d{1,3}\.\d{1,3}\.\d{1,3}\.\d{1,3})$/i;

/** Plain address: IPv4-mapped IPv6 as IPv4; undefined when it is not an IP address. */
export function plainAddress(address: string | undefined): string | undefined {
  if (!address) return undefined;
  const v4 = V4_MAPPED.exec(address)?.[1];
  if (v4) return v4;
  return isIP(address) ? address : undefined;
}

/** A matcher for addresses and CIDRs ("10.0.0.0/8", "::1"; validated by the config schema). */
export function addressMatcher(entries: readonly string[]): (address: string | undefined) => boolean {
  const list = new BlockList();
  for (const entry of entries) {
    const [addr, bits] = entry.split('/') as [string, string | undefined];
    const type = isIP(addr) === 6 ? 'ipv6' : 'ipv4';
    if (bits === undefined) list.addAddress(addr, type);
    else list.addSubnet(addr, Number(bits), type);
  }
  return (address) => {
    const a = plainAddress(address);
    return a !== undefined && list.check(a, isIP(a) === 6 ? 'ipv6' : 'ipv4');
  };
}

const LOOPBACK = addressMatcher(['127.0.0.0/8', '::1']);

/** What a request tells about where it came from (Node's IncomingMessage has these). */
export interface PeerRequest {
  socket?: { remoteAddress?: string } | null;
  headers: Record<string, string | string[] | undefined>;
}

/**
 * The client's address: the socket peer, unless that peer is one of `server.trustedProxies`;
 * then the rightmost X-Forwarded-For entry that is not a trusted proxy. Entries left of it
 * were written by the client itself and prove nothing. An entry that is not an address (or a
 * list of trusted proxies only) leaves the last trusted hop as the client: that is all we know.
 * Only X-Forwarded-For is read (what nginx, HAProxy and cloud balancers append); `Forwarded`
 * passes through nginx untouched, so a client could write anything in it.
 */
export function createClientAddress(
  trustedProxies: readonly string[],
  /** Called once, the first time a loopback peer forwards a request while no proxy is trusted (a misconfiguration to report). */
  onUntrustedProxy?: (peer: string) => void,
): (req: PeerRequest) => string | undefined {
  if (trustedProxies.length === 0) {
    let told = !onUntrustedProxy;
    return (req) => {
      const peer = plainAddress(req.socket?.remoteAddress ?? undefined);
      if (!told && peer && req.headers['x-forwarded-for'] !== undefined && LOOPBACK(peer)) {
        told = true;
        onUntrustedProxy!(peer);
      }
      return peer;
    };
  }
  const trusted = addressMatcher(trustedProxies);
  return (req) => {
    let client = plainAddress(req.socket?.remoteAddress ?? undefined);
    if (!client || !trusted(client)) return client;
    const header = req.headers['x-forwarded-for'];
    const chain = (Array.isArray(header) ? header.join(',') : header ?? '').split(',');
    for (let i = chain.length - 1; i >= 0; i--) {
      const hop = plainAddress(unbracket(chain[i].trim()));
      if (!hop) break;
      client = hop;
      if (!trusted(hop)) break;
    }
    return client;
  };
}

/** "[2001:db8::1]" or "[2001:db8::1]:443" → "2001:db8::1"; "192.0.2.1:443" → "192.0.2.1" (some proxies add ports). */
function unbracket(entry: string): string {
  const v6 = /^\[([^\]]+)\](?::\d+)?$/.exec(entry);
  if (v6) return v6[1];
  const v4 = /^(\d{1,3}(?:\.\d{1,3}){3}):\d+$/.exec(entry);
  return v4 ? v4[1] : entry;
}

/** Did this request come through a proxy? (It names a client it was forwarded for.) */
export function isForwarded(req: PeerRequest): boolean {
  const h = req.headers;
  return h['x-forwarded-for'] !== undefined || h.forwarded !== undefined || h['x-real-ip'] !== undefined;
}
