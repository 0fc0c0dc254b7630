import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { formatRate } from '../../../src/domain/rates.ts';
import { RateSourceError, type RateSource } from '../../../src/pricing/source.ts';
import { SOURCE_FACTORIES } from '../../../src/pricing/sources/index.ts';
import { startFakeRateSources, type FakeSourceName } from '../../fakes/rates/server.ts';

// Each source's adapter against a fake serving its recorded shapes (test/fixtures/rates/REAL-RATES.md).
const RATES: Record<FakeSourceName, [string, string]> = {
  coindcx: ['USDT/INR', '83.75'],
  wazirx: ['USDT/INR', '83.80'],
  kraken: ['USDT/USD', '0.99967000'],
  coinbase: ['SOL/USD', '150.105'],
  binance: ['SOL/USDT', '149.95000000'],
  frankfurter: ['USD/INR', '86.09'],
  coingecko: ['USDT/INR', '83.7'],
};
// The pair payd asks each for (Binance's SOL/USD is read from SOLUSDT).
const ASKED: Record<FakeSourceName, string> = { coindcx: 'USDT/INR', wazirx: 'USDT/INR', kraken: 'USDT/USD', coinbase: 'SOL/USD', binance: 'SOL/USD', frankfurter: 'USD/INR', coingecko: 'USDT/INR' };
const EXPECTED: Record<FakeSourceName, string> = { coindcx: '83.75', wazirx: '83.8', kraken: '0.99967', coinbase: '150.105', binance: '149.95', frankfurter: '86.09', coingecko: '83.7' };

let fakes: Awaited<ReturnType<typeof startFakeRateSources>>;
before(async () => {
  fakes = await startFakeRateSources(Object.fromEntries(Object.entries(RATES).map(([k, [pair, rate]]) => [k, { [pair]: rate }])));
});
after(() => fakes.close());

const build = (name: FakeSourceName, apiKey: string | null = 'demo-key'): RateSource => SOURCE_FACTORIES[name].build({ fetch, baseUrl: fakes.sources[name].url, apiKey: apiKey === null ? undefined : () => apiKey });
const signal = () => AbortSignal.timeout(5000);

for (const name of Object.keys(RATES) as FakeSourceName[]) {
  test(`${name}: reads the rate exactly, one request per fetch; failures of every kind are errors, never rates`, async () => {
    const fake = fakes.sources[name];
    const source = build(name);
    fake.set('ok');
    const before = fake.state.requests.length;
    const reading = await source.fetch(ASKED[name], signal());
    assert.equal(formatRate(reading.rate), EXPECTED[name]);
    assert.equal(fake.state.requests.length - before, 1);
    for (const mode of ['down', 'error', 'zero', 'garbage'] as const) {
      fake.set(mode);
      await assert.rejects(source.fetch(ASKED[name], signal()), RateSourceError, `${name} ${mode}`);
    }
    fake.set('rate-limited');
    const limited = await source.fetch(ASKED[name], signal()).then(
      () => assert.fail('a rate-limit answer gave a rate'),
      (e: unknown) => e as RateSourceError,
    );
    assert.ok(limited instanceof RateSourceError);
    // Kraken answers its limit inside HTTP 200 with no Retry-After; the others send one (or we assume 60 s on a bare 429).
    if (name !== 'kraken') assert.ok((limited.retryAfter ?? 0) >= 30, `${name}: ${limited.message}`);
    fake.set('ok');
  });
}

test('coingecko without its demo key: the real 401 error 10002 is a failure that names it', async () => {
  await assert.rejects(build('coingecko', null).fetch('USDT/INR', signal()), /HTTP 401: 10002 API Key Missing/);
});

test('a pair the source does not list is an error with the source\'s own message', async () => {
  await assert.rejects(build('kraken').fetch('SOL/EUR', signal()), /EQuery:Unknown asset pair/);
  await assert.rejects(build('wazirx').fetch('SOL/INR', signal()), /-1121 Invalid symbol/);
  await assert.rejects(build('coinbase').fetch('SOL/EUR', signal()), /not_found: Invalid currency/);
  await assert.rejects(build('binance').fetch('BTC/USD', signal()), /-1121 Invalid symbol/);
  assert.equal(build('binance').supports('USDT/INR'), false);
  assert.equal(build('frankfurter').supports('SOL/USD'), false);
});
