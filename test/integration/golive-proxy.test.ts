// The README's reverse-proxy example (config/nginx-payd.conf) with Debian's nginx in front of a
// real payd: TLS, the API, the checkout page and the checkout's WebSocket upgrade pass through.
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { get as httpGet } from 'node:http';
import { request } from 'node:https';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { startPayd } from '../helpers/payd.ts';

const NGINX = '/usr/sbin/nginx';

async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as AddressInfo).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

/** One HTTPS request through the proxy (self-signed certificate), or an upgrade. */
function call(port: number, path: string, o: { method?: string; headers?: Record<string, string>; body?: string } = {}) {
  return new Promise<{ status: number; headers: Record<string, unknown>; body: string; upgraded?: string }>((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, method: o.method ?? 'GET', headers: { host: 'pay.example.test', ...o.headers }, rejectUnauthorized: false, timeout: 10_000 }, (res) => {
      let body = '';
      res.on('data', (d) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body }));
    });
    req.on('upgrade', (res, socket) => {
      // The first WebSocket frame: the intent's state, sent by payd right after the upgrade.
      socket.once('data', (frame: Buffer) => {
        socket.destroy();
        const len = frame[1] & 0x7f;
        const start = len === 126 ? 4 : 2;
        resolve({ status: res.statusCode!, headers: res.headers, body: '', upgraded: frame.subarray(start).toString('utf8') });
      });
    });
    req.on('error', reject);
    req.end(o.body);
  });
}

test('nginx from config/nginx-payd.conf terminates TLS and passes the API, the checkout page and its WebSocket to payd', async (t) => {
  assert.ok(existsSync(NGINX), `nginx is not installed (${NGINX}): apt-get install nginx-light`);
  const dir = mkdtempSync(join(tmpdir(), 'payd-proxy-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const p = await startPayd({ sandbox: true });
  t.after(() => p.close());
  const upstream = new URL(p.url);

  execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1', '-subj', '/CN=pay.example.test', '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem')], { stdio: 'ignore' });
  const tlsPort = await freePort();
  const httpPort = await freePort();
  // The shipped example, with only what the README says to edit (and test ports) changed.
  const site = readFileSync(new URL('../../config/nginx-payd.conf', import.meta.url), 'utf8')
    .replaceAll('pay.example.com', 'pay.example.test')
    .replace('/etc/letsencrypt/live/pay.example.test/fullchain.pem', join(dir, 'cert.pem'))
    .replace('/etc/letsencrypt/live/pay.example.test/privkey.pem', join(dir, 'key.pem'))
    .replace('listen 443 ssl http2;', `listen 127.0.0.1:${tlsPort} ssl http2;`)
    .replace('listen [::]:443 ssl http2;', '')
    .replace('listen 80;', `listen 127.0.0.1:${httpPort};`)
    .replace('listen [::]:80;', '')
    .replace('proxy_pass http://127.0.0.1:8080;', `proxy_pass http://127.0.0.1:${upstream.port};`);
  assert.doesNotMatch(site, /:443|:8080|letsencrypt/, 'every edit point was found');
  // What the README says to edit (host name, certificate, payd's port) is marked EDIT in the file.
  const editable = readFileSync(new URL('../../config/nginx-payd.conf', import.meta.url), 'utf8').split('\n').filter((l) => /^\s*(server_name|ssl_certificate|ssl_certificate_key|proxy_pass)\s/.test(l));
  assert.ok(editable.some((l) => l.includes('proxy_pass')));
  for (const line of editable) assert.match(line, /# EDIT/, line);
  // What Debian's /etc/nginx/nginx.conf wraps around sites-enabled/*, minus what needs root.
  writeFileSync(
    join(dir, 'nginx.conf'),
    `worker_processes 1;\npid ${join(dir, 'nginx.pid')};\nerror_log ${join(dir, 'error.log')};\nevents { worker_connections 64; }\nhttp {\n  access_log off;\n  client_body_temp_path ${dir}/body; proxy_temp_path ${dir}/proxy; fastcgi_temp_path ${dir}/fcgi; uwsgi_temp_path ${dir}/uwsgi; scgi_temp_path ${dir}/scgi;\n${site}\n}\n`,
  );
  const nginx = spawn(NGINX, ['-p', dir, '-c', join(dir, 'nginx.conf'), '-g', 'daemon off;'], { stdio: ['ignore', 'ignore', 'pipe'] });
  let nginxErr = '';
  nginx.stderr.on('data', (d) => (nginxErr += d));
  t.after(() => nginx.kill('SIGTERM'));
  const deadline = Date.now() + 20_000;
  let health: Awaited<ReturnType<typeof call>> | null = null;
  while (!health && Date.now() < deadline) {
    health = await call(tlsPort, '/healthz').catch(() => null);
    if (!health) await new Promise((r) => setTimeout(r, 200));
  }
  assert.ok(health, `nginx did not come up: ${nginxErr}${existsSync(join(dir, 'error.log')) ? readFileSync(join(dir, 'error.log'), 'utf8') : ''}`);
  assert.equal(health.status, 200);

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
