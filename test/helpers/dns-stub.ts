// A tiny UDP DNS server on 127.0.0.1 that answers TXT look-ups from a zone the test controls.
import { createSocket, type Socket } from 'node:dgram';

const RCODE = { ok: 0, servfail: 2, nxdomain: 3 } as const;

/** Answers TXT from `zone`; names in `servfail` get SERVFAIL, in `silent` no answer at all. */
export function dnsStub(zone: Record<string, string[][]>) {
  const servfail = new Set<string>();
  const silent = new Set<string>();
  const socket: Socket = createSocket('udp4');
  socket.on('message', (q, peer) => {
    let off = 12;
    const labels: string[] = [];
    while (q[off] !== 0) {
      labels.push(q.subarray(off + 1, off + 1 + q[off]).toString('latin1'));
      off += q[off] + 1;
    }
    const qtype = q.readUInt16BE(off + 1);
    const questionEnd = off + 5;
    const name = labels.join('.').toLowerCase();
    if (silent.has(name)) return;
    const rows = qtype === 16 ? zone[name] : undefined;
    const rcode = servfail.has(name) ? RCODE.servfail : rows ? RCODE.ok : RCODE.nxdomain;
    const answers = (rcode === RCODE.ok ? rows! : []).map((row) => {
      // A TXT character-string holds at most 255 bytes: long DKIM keys go out in chunks.
      const chunks = row.flatMap((s) => s.match(/[\s\S]{1,255}/g) ?? ['']).map((c) => Buffer.concat([Buffer.from([c.length]), Buffer.from(c, 'latin1')]));
      const rdata = Buffer.concat(chunks);
      const rr = Buffer.alloc(12);
      rr.writeUInt16BE(0xc00c, 0); // pointer to the question's name
      rr.writeUInt16BE(16, 2);
      rr.writeUInt16BE(1, 4);
      rr.writeUInt32BE(60, 6);
      rr.writeUInt16BE(rdata.length, 10);
      return Buffer.concat([rr, rdata]);
    });
    const header = Buffer.alloc(12);
    header.writeUInt16BE(q.readUInt16BE(0), 0);
    header.writeUInt16BE(0x8180 | rcode, 2);
    header.writeUInt16BE(1, 4);
    header.writeUInt16BE(answers.length, 6);
    socket.send(Buffer.concat([header, q.subarray(12, questionEnd), ...answers]), peer.port, peer.address);
  });
  return {
    servfail,
    silent,
    start: () => new Promise<string>((resolve) => socket.bind(0, '127.0.0.1', () => resolve(`127.0.0.1:${socket.address().port}`))),
    stop: () => new Promise<void>((resolve) => socket.close(() => resolve())),
  };
}

