/**
 * The IPv4 address an IPv6 address carries, if it is one of the forms that reach IPv4 hosts:
 * IPv4-mapped `::ffff:0:0/96` (and its SIIT twin `::ffff:0:0:0/96`), NAT64 `64:ff9b::/96`
 * (RFC 6052 well-known) and `64:ff9b:1::/48` (RFC 8215 local use, address in bits 48-63 and
 * 72-87 per RFC 6052 §2.2), 6to4 `2002::/16` (bits 16-47). A webhook to any of them ends up
 * at that IPv4 address, so it is judged as that address.
 */
export function embeddedIpv4(address: string): string | undefined {
  const b = ipv6Bytes(address);
  if (!b) return undefined;
  const v4 = (bytes: number[]) => bytes.join('.');
  const zeros = (from: number, to: number) => b.slice(from, to).every((x) => x === 0);
  if (zeros(0, 10) && b[10] === 0xff && b[11] === 0xff) return v4(b.slice(12));
  if (zeros(0, 8) && b[8] === 0xff && b[9] === 0xff && zeros(10, 12)) return v4(b.slice(12));
  if (b[0] === 0x00 && b[1] === 0x64 && b[2] === 0xff && b[3] === 0x9b) {
    if (zeros(4, 12)) return v4(b.slice(12));
    if (b[4] === 0x00 && b[5] === 0x01) return v4([b[6]!, b[7]!, b[9]!, b[10]!]);
  }
  if (b[0] === 0x20 && b[1] === 0x02) return v4(b.slice(2, 6));
  return undefined;
}

/** 16 bytes of a textual IPv6 address (a zone id is dropped), or undefined if it is not one. */
export function ipv6Bytes(address: string): number[] | undefined {
  let s = address.replace(/^\[|\]$/g, '').replace(/%.*$/, '').toLowerCase();
  const tail: number[] = [];
  const dotted = /^(.*:)(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(s);
  if (dotted) {
    const q = dotted.slice(2).map(Number);
    if (q.some((x) => x > 255)) return undefined;
    tail.push(...q);
    s = dotted[1]!.endsWith('::') ? dotted[1]! : dotted[1]!.slice(0, -1);
  }
  const halves = s.split('::');
  if (halves.length > 2) return undefined;
  const groups = (h: string) => (h === '' ? [] : h.split(':'));
  const head = groups(halves[0]!);
  const rest = halves.length === 2 ? groups(halves[1]!) : [];
  const want = 8 - tail.length / 2;
  const fill = want - head.length - rest.length;
  if (halves.length === 2 ? fill < 1 : fill !== 0) return undefined;
  const all = [...head, ...Array<string>(halves.length === 2 ? fill : 0).fill('0'), ...rest];
  const bytes: number[] = [];
  for (const g of all) {
    if (!/^[0-9a-f]{1,4}$/.test(g)) return undefined;
    const n = parseInt(g, 16);
    bytes.push(n >> 8, n & 0xff);
  }
  bytes.push(...tail);
  return bytes.length === 16 ? bytes : undefined;
}
