import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseConfig } from '../../../src/methods/load-config.ts';
import { solanaEndpoints } from '../../../src/methods/solana/config.ts';
import { tronEndpoints } from '../../../src/methods/tron/config.ts';

const TRON = 'TWiw9REQDT97WudRTTnw118xEFGc3HWwuM';
const WALLET = '9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM';
const EVM = '0x52908400098527886E0F7030069857D2E4169EE7';
const parse = (methods: Record<string, unknown>, env: Record<string, string> = {}) => parseConfig({ methods }, '/srv/payd', env);

test('endpoints: a list of { url, apiKey?, weight? } per chain method, keys as secret references', () => {
  const c = parse(
    {
      USDT_TRC20: { address: TRON, endpoints: [{ url: 'https://api.trongrid.io', apiKey: { env: 'TG_KEY' } }, { url: 'http://10.0.0.5:8090', weight: 2 }] },
      SOL: { wallet: WALLET, endpoints: [{ url: 'https://mainnet.helius-rpc.com/?api-key={apiKey}', apiKey: { env: 'HELIUS' } }, { url: 'https://api.mainnet-beta.solana.com' }] },
    },
    { TG_KEY: 'tg-secret', HELIUS: 'h-secret' },
  );
  assert.deepEqual(tronEndpoints(c.methods.USDT_TRC20!), [
    { url: 'https://api.trongrid.io', weight: 1, apiKey: 'tg-secret' },
    { url: 'http://10.0.0.5:8090', weight: 2 },
  ]);
  assert.deepEqual(solanaEndpoints(c.methods.SOL!).map((e) => e.apiKey ?? null), ['h-secret', null]);
  assert.ok(!JSON.stringify(c.methods.USDT_TRC20).includes('tg-secret'), 'keys stay redacted in the parsed config');
});

test('the single apiUrl / apiKey / rpcUrl keep working as a one-entry list, with the public defaults', () => {
  const c = parse({ USDT_TRC20: { address: TRON, apiUrl: 'https://tron.example', apiKey: 'k' }, SOL: { wallet: WALLET }, USDT_SOL: { wallet: WALLET, rpcUrl: 'https://rpc.example' } });
  assert.deepEqual(tronEndpoints(c.methods.USDT_TRC20!), [{ url: 'https://tron.example', weight: 1, apiKey: 'k' }]);
  assert.deepEqual(solanaEndpoints(c.methods.SOL!), [{ url: 'https://api.mainnet-beta.solana.com', weight: 1 }]);
  assert.deepEqual(solanaEndpoints(c.methods.USDT_SOL!), [{ url: 'https://rpc.example', weight: 1 }]);
  assert.deepEqual(tronEndpoints(parse({ USDT_TRC20: { address: TRON } }).methods.USDT_TRC20!), [{ url: 'https://api.trongrid.io', weight: 1 }]);
});

test('bad endpoint lists are refused with the path named', () => {
  const bad: [Record<string, unknown>, RegExp][] = [
    [{ USDT_TRC20: { address: TRON, endpoints: [] } }, /methods\.USDT_TRC20\.endpoints: must list at least one endpoint/],
    [{ USDT_TRC20: { address: TRON, endpoints: [{ url: 'https://a.example' }, { url: 'https://a.example/' }] } }, /methods\.USDT_TRC20\.endpoints: lists the same url twice/],
    [{ USDT_TRC20: { address: TRON, apiKey: 'k', endpoints: [{ url: 'https://a.example' }] } }, /methods\.USDT_TRC20\.endpoints: cannot be combined with apiUrl or apiKey/],
    [{ SOL: { wallet: WALLET, rpcUrl: 'https://a.example', endpoints: [{ url: 'https://b.example' }] } }, /methods\.SOL\.endpoints: cannot be combined with rpcUrl/],
    [{ SOL: { wallet: WALLET, endpoints: [{ url: 'ftp://a.example' }] } }, /methods\.SOL\.endpoints\.0\.url: expected an http\(s\) URL/],
    [{ USDT_SOL: { wallet: WALLET, endpoints: [{ url: 'https://a.example', weight: 0 }] } }, /methods\.USDT_SOL\.endpoints\.0\.weight: must be greater than 0/],
    [{ SOL: { wallet: WALLET, endpoints: [{ url: 'https://a.example', key: 'x' }] } }, /methods\.SOL\.endpoints\.0\.key/],
    [{ SOL: { wallet: WALLET, endpoints: 'https://a.example' } }, /methods\.SOL\.endpoints: expected a list/],
  ];
  for (const [methods, message] of bad) assert.throws(() => parse(methods), message, JSON.stringify(methods));
});

test('a JSON-RPC endpoint key (Solana, EVM) needs a {apiKey} place in its url: JSON-RPC has no key header', () => {
  assert.throws(() => parse({ SOL: { wallet: WALLET, endpoints: [{ url: 'https://rpc.example', apiKey: 'k' }] } }), /methods\.SOL\.endpoints: an apiKey needs \{apiKey\} in its url/);
  assert.throws(() => parse({ USDT_ETH: { address: EVM, endpoints: [{ url: 'https://rpc.example', apiKey: 'k' }] } }), /methods\.USDT_ETH\.endpoints: an apiKey needs \{apiKey\} in its url/);
  const c = parse({ USDT_ETH: { address: EVM, endpoints: [{ url: 'https://mainnet.infura.io/v3/{apiKey}', apiKey: { env: 'INFURA' } }] } }, { INFURA: 'i-secret' });
  assert.equal(c.methods.USDT_ETH!.endpoints![0]!.apiKey!.reveal(), 'i-secret');
});

test('confirmations.endpoints: at least 1, at most the endpoints configured', () => {
  const two = [{ url: 'https://a.example' }, { url: 'https://b.example' }];
  assert.equal(parse({ SOL: { wallet: WALLET, endpoints: two, confirmations: { endpoints: 2 } } }).methods.SOL!.confirmations?.endpoints, 2);
  assert.equal(parse({ USDT_TRC20: { address: TRON, endpoints: two } }).methods.USDT_TRC20!.confirmations, undefined, 'absent: the pool takes 2 where two exist');
  assert.throws(() => parse({ USDT_TRC20: { address: TRON, endpoints: two, confirmations: { endpoints: 3 } } }), /methods\.USDT_TRC20\.confirmations: cannot exceed the number of endpoints configured/);
  assert.throws(() => parse({ SOL: { wallet: WALLET, confirmations: { endpoints: 2 } } }), /methods\.SOL\.confirmations: cannot exceed the number of endpoints configured/);
  assert.throws(() => parse({ SOL: { wallet: WALLET, endpoints: two, confirmations: { endpoints: 0 } } }), /methods\.SOL\.confirmations\.endpoints: must be at least 1/);
});
