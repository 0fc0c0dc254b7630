import assert from 'node:assert/strict';
import { createServer, type AddressInfo } from 'node:net';
import { test } from 'node:test';
import { networkWords } from '../../src/domain/errors.ts';
import { startFakeRateSources } from '../fakes/rates/server.ts';
import { payd, workdir } from '../helpers/cli.ts';

// `payd rates --refresh` as a script sees it: a source never reached says why in words, and a
// refresh that reached no source at all exits non-zero.

/** A loopback port nothing listens on (fetch refuses port 1 itself, as a "bad port"). */
async function closedPort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as AddressInfo).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

test('payd rates --refresh: every source unreachable exits 1 and names the cause; one answering exits 0', async (t) => {
  const port = await closedPort();
  const down = { baseUrl: `http://127.0.0.1:${port}` };
  const dir = workdir(t, { database: { file: 'data/payd.sqlite' }, server: { port: 0 }, pricing: { pairs: { 'USDT/INR': ['coindcx', 'wazirx'] }, sources: { coindcx: down, wazirx: down } } });
  // The rate cache lives in the database: the shop's first step creates it.
  assert.equal((await payd(['merchant', 'create', '--name', 'Shop'], { cwd: dir })).code, 0);
  const r = await payd(['rates', '--refresh'], { cwd: dir });
  assert.equal(r.code, 1, r.out + r.err);
  assert.match(r.out, new RegExp(`coindcx .*nothing accepts connections at 127\\.0\\.0\\.1:${port} \\(ECONNREFUSED\\)`));
  assert.match(r.err, /every rate source failed/);

  const fakes = await startFakeRateSources({ coindcx: { 'USDT/INR': '83.75' } });
  t.after(() => fakes.close());
  const half = workdir(t, { database: { file: 'data/payd.sqlite' }, server: { port: 0 }, pricing: { pairs: { 'USDT/INR': ['coindcx', 'wazirx'] }, sources: { coindcx: { baseUrl: fakes.sources.coindcx.url }, wazirx: down } } });
  assert.equal((await payd(['merchant', 'create', '--name', 'Shop'], { cwd: half })).code, 0);
  const ok = await payd(['rates', '--refresh'], { cwd: half });
  assert.equal(ok.code, 0, ok.out + ok.err);
  assert.match(ok.out, /coindcx +83\.75/);
});

test('a DNS failure in words: the name that did not resolve, and the code to search for', () => {
  // undici's fetch failure as describeError writes it (message, then its cause's).
  assert.equal(networkWords('fetch failed: getaddrinfo ENOTFOUND api.coindcx.com'), 'the name api.coindcx.com could not be looked up (DNS: ENOTFOUND, no such host)');
  assert.equal(networkWords('fetch failed: getaddrinfo EAI_AGAIN api.telegram.org'), 'the name api.telegram.org could not be looked up (DNS: EAI_AGAIN, the resolver did not answer)');
  assert.equal(networkWords('HTTP 502: bad gateway'), null);
});
