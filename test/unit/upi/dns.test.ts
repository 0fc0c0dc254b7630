// createDnsResolver against a tiny UDP DNS server on loopback, and mailauth over it.
import assert from 'node:assert/strict';
import { createSocket, type Socket } from 'node:dgram';
import { after, before, describe, it } from 'node:test';
import { createDnsResolver } from '../../../src/methods/upi/dns.ts';
import { inspectAlert } from '../../../src/methods/upi/inspect.ts';
import { fixture, fixtureJson, options, show } from './helpers.ts';

const RCODE = { ok: 0, servfail: 2, nxdomain: 3 } as const;

/** Answers TXT from `zone`; names in `servfail` get SERVFAIL, in `silent` no answer at all. */
function dnsStub(zone: Record<string, string[][]>) {
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

const zone = fixtureJson('test-dns.json') as Record<string, string[][]>;
const KEY = 'paydtest2026._domainkey.hdfcbank.bank.in';
const stub = dnsStub({ ...zone, 'two.test': [['v=spf1 ', '-all']] });
let server = '';
before(async () => {
  server = await stub.start();
});
after(() => stub.stop());

describe('createDnsResolver', () => {
  it('resolves TXT records as chunk arrays from the configured server', async () => {
    const resolve = createDnsResolver([server], 1000);
    assert.deepEqual(await resolve('two.test', 'TXT'), [['v=spf1 ', '-all']]);
    const key = (await resolve(KEY, 'TXT')) as string[][];
    assert.equal(key[0].join(''), zone[KEY][0][0]);
  });

  it('keeps the error code: ENOTFOUND for NXDOMAIN, ESERVFAIL for SERVFAIL', async () => {
    const resolve = createDnsResolver([server], 1000);
    await assert.rejects(resolve('missing.test', 'TXT'), { code: 'ENOTFOUND' });
    stub.servfail.add('broken.test');
    await assert.rejects(resolve('broken.test', 'TXT'), { code: 'ESERVFAIL' });
  });

  it('gives up after the timeout with ETIMEOUT', async () => {
    stub.silent.add('slow.test');
    const resolve = createDnsResolver([server], 200);
    const t0 = Date.now();
    await assert.rejects(resolve('slow.test', 'TXT'), { code: 'ETIMEOUT' });
    assert.ok(Date.now() - t0 < 2000);
  });
});

describe('inspectAlert over real DNS look-ups', () => {
  it('the shipped signed sample verifies through the resolver', async () => {
    const v = await inspectAlert(fixture('hdfc-credit.dkim-signed.eml'), options(createDnsResolver([server], 1000)));
    assert.equal(v.kind, 'credit', show(v));
  });

  it('SERVFAIL on the key becomes a retry', async () => {
    stub.servfail.add(KEY);
    try {
      const v = await inspectAlert(fixture('hdfc-credit.dkim-signed.eml'), options(createDnsResolver([server], 1000)));
      assert.deepEqual(v, { kind: 'retry', reason: 'dns_temperror' });
    } finally {
      stub.servfail.delete(KEY);
    }
  });

  it('an unanswered key look-up becomes a retry', async () => {
    stub.silent.add(KEY);
    try {
      const v = await inspectAlert(fixture('hdfc-credit.dkim-signed.eml'), options(createDnsResolver([server], 200)));
      assert.deepEqual(v, { kind: 'retry', reason: 'dns_temperror' });
    } finally {
      stub.silent.delete(KEY);
    }
  });
});
