// The reverse-proxy example of docs/operations.md (config/nginx-payd.conf) with Debian's nginx in front of a
// real payd: TLS, the API, the checkout page and the checkout's WebSocket upgrade pass through.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { get as httpGet } from 'node:http';
import { test } from 'node:test';
import { startPayd } from '../helpers/payd.ts';
import { call, startNginx } from '../helpers/nginx.ts';

test('nginx from config/nginx-payd.conf terminates TLS and passes the API, the checkout page and its WebSocket to payd', async (t) => {
  const p = await startPayd({ sandbox: true });
  t.after(() => p.close());
  const { tlsPort, httpPort } = await startNginx(t, Number(new URL(p.url).port));
  // What docs/operations.md says to edit (host name, certificate, payd's port) is marked EDIT in the file.
  const editable = readFileSync(new URL('../../config/nginx-payd.conf', import.meta.url), 'utf8').split('\n').filter((l) => /^\s*(server_name|ssl_certificate|ssl_certificate_key|proxy_pass)\s/.test(l));
  assert.ok(editable.some((l) => l.includes('proxy_pass')));
  for (const line of editable) assert.match(line, /# EDIT/, line);

  // Plain HTTP only redirects to HTTPS.
  const plain = await new Promise<number>((resolve, reject) => {
    const r = httpGet({ host: '127.0.0.1', port: httpPort, path: '/pay/x', headers: { host: 'pay.example.test' } }, (res) => resolve(res.statusCode!));
    r.on('error', reject);
  }).catch(() => 0);
  assert.equal(plain, 301);

  // /metrics is for the host only: through the proxy every client would look like loopback.
  assert.equal((await call(tlsPort, '/metrics')).status, 404);

  const m = await p.merchant();
  const created = await call(tlsPort, '/api/v1/intents/create-payment', { method: 'POST', headers: { ...m.headers, 'content-type': 'application/json' }, body: JSON.stringify({ amount: 499, currency: 'UPI', order_id: 'proxy-1' }) });
  assert.equal(created.status, 200, created.body);
  const intent = JSON.parse(created.body);
  const page = await call(tlsPort, `/pay/${intent.intent_id}`);
  assert.equal(page.status, 200);
  assert.match(String(page.headers['content-security-policy']), /script-src 'self'/);
  assert.match(page.body, /TEST MODE/);

  const ws = await call(tlsPort, `/pay/${intent.intent_id}/ws`, { headers: { connection: 'Upgrade', upgrade: 'websocket', 'sec-websocket-version': '13', 'sec-websocket-key': randomBytes(16).toString('base64') } });
  assert.equal(ws.status, 101, 'the WebSocket upgrade passes through nginx');
  const state = JSON.parse(ws.upgraded!);
  assert.equal(state.intent_id, intent.intent_id);
  assert.equal(state.status, 'pending');
});
