// createDnsResolver against a tiny UDP DNS server on loopback, and mailauth over it.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createDnsResolver } from '../../../../src/methods/upi/dns.ts';
import { inspectAlert } from '../../../../src/methods/upi/inspect.ts';
import { fixture, fixtureJson, options, show } from '../../../helpers/upi-kit.ts';
import { dnsStub } from '../../../helpers/dns-stub.ts';

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
      assert.deepEqual([v.kind, (v as { reason: string }).reason], ['retry', 'dns_temperror']);
    } finally {
      stub.servfail.delete(KEY);
    }
  });

  it('an unanswered key look-up becomes a retry', async () => {
    stub.silent.add(KEY);
    try {
      const v = await inspectAlert(fixture('hdfc-credit.dkim-signed.eml'), options(createDnsResolver([server], 200)));
      assert.deepEqual([v.kind, (v as { reason: string }).reason], ['retry', 'dns_temperror']);
    } finally {
      stub.silent.delete(KEY);
    }
  });
});
