import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { payd } from '../helpers/cli.ts';
import { startPayd } from '../helpers/payd.ts';
import { startReceiver } from '../helpers/receiver.ts';
import { forEachStore } from '../helpers/stores.ts';

// On both stores: SQLite and PostgreSQL (test/helpers/stores.ts).
forEachStore((store) => {
  test('webhook endpoint: GET shows the URL and a hint of the secret; PUT sets and clears it', async (t) => {
    const p = await startPayd({ store });
    t.after(() => p.close());
    const m = await p.merchant();
    const get = () => p.api('GET', '/api/v1/webhook-endpoint', { headers: m.headers });
    const put = (body: unknown) => p.api('PUT', '/api/v1/webhook-endpoint', { body, headers: m.headers });

    const first = await get();
    assert.equal(first.status, 200);
    assert.deepEqual(first.body, { url: null, secret_hint: `whsec_…${m.webhookSecret.slice(-4)}` });
    assert.equal(first.text.includes(m.webhookSecret.slice(6, 20)), false, 'the secret itself is never shown');

    const set = await put({ url: 'https://shop.example.com/payd-hooks' });
    assert.equal(set.status, 200);
    assert.deepEqual(set.body, { url: 'https://shop.example.com/payd-hooks', secret_hint: first.body.secret_hint });
    assert.deepEqual((await get()).body.url, 'https://shop.example.com/payd-hooks');
    assert.equal((await p.app.merchants.get(m.clientId)).webhookUrl, 'https://shop.example.com/payd-hooks');

    const cleared = await put({ url: null });
    assert.equal(cleared.status, 200);
    assert.equal(cleared.body.url, null);
    assert.equal((await p.app.merchants.get(m.clientId)).webhookUrl, null);

    for (const body of [{}, { url: 5 }, { url: 'https://a.example', extra: 1 }, [], 'x']) {
      const r = await put(body);
      assert.equal(r.status, 400, JSON.stringify(body));
      assert.equal(r.body.code, 'INVALID_REQUEST');
      assert.ok(r.body.errors?.length > 0, `errors[] names the field: ${JSON.stringify(r.body)}`);
    }
    const notJson = await p.api('PUT', '/api/v1/webhook-endpoint', { raw: '{', headers: { ...m.headers, 'content-type': 'application/json' } });
    assert.equal(notJson.body.code, 'INVALID_REQUEST');
    assert.deepEqual(notJson.body.errors, [{ field: '(body)', message: 'request body is not valid JSON' }]);
    assert.equal((await p.api('GET', '/api/v1/webhook-endpoint')).status, 401);
    assert.equal((await p.api('DELETE', '/api/v1/webhook-endpoint', { headers: m.headers })).status, 405);
    const audit = await p.app.db.selectFrom('audit_log').select(['actor', 'action']).where('subject', '=', m.clientId).where('action', '=', 'merchant.set-webhook').execute();
    assert.deepEqual(audit.map((a) => a.actor), ['api', 'api']);
  });

  test('webhook endpoint: a URL is refused by the API exactly when and as the CLI refuses it', async (t) => {
    const p = await startPayd({ store });
    t.after(() => p.close());
    const m = await p.merchant();
    writeFileSync(join(p.dir, 'payd.config.json'), JSON.stringify(p.rawConfig));
    for (const url of ['http://shop.example.com/hook', 'ftp://shop.example.com/hook', 'https://user:pw@shop.example.com/hook', 'not a url', 'http://127.0.0.1:9/hook']) {
      const api = await p.api('PUT', '/api/v1/webhook-endpoint', { body: { url }, headers: m.headers });
      const cli = await payd(['merchant', 'set-webhook', m.clientId, '--url', url], { cwd: p.dir });
      if (cli.code === 0) {
        assert.equal(api.status, 200, `${url}: ${api.text}`);
      } else {
        assert.equal(api.status, 400, url);
        assert.equal(api.body.code, 'INVALID_REQUEST');
        assert.deepEqual(api.body.errors, [{ field: 'url', message: api.body.detail }], url);
        assert.ok(cli.err.includes(api.body.detail), `${url}: CLI said ${cli.err}, API said ${api.body.detail}`);
      }
    }
    // Plain http to loopback is the one accepted above.
    assert.equal((await p.app.merchants.get(m.clientId)).webhookUrl, 'http://127.0.0.1:9/hook');
  });

  test('webhook endpoint: rotate-secret returns the new secret once; both secrets sign during the grace period', async (t) => {
    const receiver = await startReceiver();
    const p = await startPayd({ store, workers: true });
    t.after(async () => {
      await p.close();
      await receiver.close();
    });
    const m = await p.merchant('Shop', receiver.url);
    const r = await p.api('POST', '/api/v1/webhook-endpoint/rotate-secret', { headers: m.headers });
    assert.equal(r.status, 200);
    assert.match(r.body.webhook_secret, /^whsec_[A-Za-z0-9+/]{43}=$/);
    assert.notEqual(r.body.webhook_secret, m.webhookSecret);
    assert.equal((await p.api('GET', '/api/v1/webhook-endpoint', { headers: m.headers })).body.secret_hint, `whsec_…${r.body.webhook_secret.slice(-4)}`);
    assert.equal((await p.api('GET', '/api/v1/webhook-endpoint/rotate-secret', { headers: m.headers })).status, 405);

    // A webhook now verifies with the new secret and with the previous one.
    const intent = (await p.api('POST', '/api/v1/intents/create-payment', { body: { amount: 10, currency: 'UPI', order_id: 'rot' }, headers: m.headers })).body;
    await p.api('POST', `/api/v1/intents/${intent.intent_id}/cancel`, { headers: m.headers });
    const [hook] = await receiver.waitFor(1, 5000);
    const headers = { 'webhook-id': String(hook.headers['webhook-id']), 'webhook-timestamp': String(hook.headers['webhook-timestamp']), 'webhook-signature': String(hook.headers['webhook-signature']) };
    assert.equal(headers['webhook-signature'].split(' ').length, 2);
    for (const secret of [r.body.webhook_secret, m.webhookSecret]) {
      const payload = new Webhook(secret).verify(hook.body, headers) as { type: string };
      assert.equal(payload.type, 'intent.canceled');
    }
  });
});

test('webhook endpoint: private, link-local and metadata addresses, also behind NAT64 and 6to4, are refused when set (API 400 and merchant create), with the reason', async (t) => {
  const p = await startPayd();
  t.after(() => p.close());
  const m = await p.merchant();
  writeFileSync(join(p.dir, 'payd.config.json'), JSON.stringify(p.rawConfig));
  const refused: Array<[string, string]> = [
    ['https://[64:ff9b::a9fe:a9fe]/hook', '169.254.169.254'],
    ['https://[2002:a9fe:a9fe::1]/hook', '169.254.169.254'],
    ['https://[64:ff9b::c0a8:101]/hook', '192.168.1.1'],
    ['https://[2002:a00:1::1]/hook', '10.0.0.1'],
    ['https://169.254.169.254/latest/meta-data/', '169.254.169.254'],
    ['https://10.1.2.3/hook', '10.1.2.3'],
    ['https://172.16.0.5/hook', '172.16.0.5'],
    ['https://[fd00::1]/hook', 'fd00::1'],
    ['https://[fe80::1]/hook', 'fe80::1'],
  ];
  for (const [url, address] of refused) {
    const api = await p.api('PUT', '/api/v1/webhook-endpoint', { body: { url }, headers: m.headers });
    assert.equal(api.status, 400, `${url}: ${api.text}`);
    assert.equal(api.body.code, 'INVALID_REQUEST');
    assert.match(api.body.detail, new RegExp(`^webhook URL points at ${address.replace(/\./g, '\\.')}, a private, link-local or reserved address`), url);
    assert.deepEqual(api.body.errors, [{ field: 'url', message: api.body.detail }]);
    const cli = await payd(['merchant', 'create', '--name', 'Metadata shop', '--webhook-url', url], { cwd: p.dir });
    assert.notEqual(cli.code, 0, `${url}: merchant create accepted it`);
    assert.ok(cli.err.includes(api.body.detail), `${url}: CLI said ${cli.err}`);
  }
  assert.equal((await p.app.merchants.get(m.clientId)).webhookUrl, null);
  assert.equal((await p.app.merchants.list()).length, 1, 'no merchant was created');
  // A public address behind 6to4 (8.8.8.8) is an ordinary endpoint.
  assert.equal((await p.api('PUT', '/api/v1/webhook-endpoint', { body: { url: 'https://[2002:808:808::1]/hook' }, headers: m.headers })).status, 200);
});
