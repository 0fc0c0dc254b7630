// Debian's nginx with the shipped config/nginx-payd.conf in front of a payd on loopback: TLS with
// a throw-away self-signed certificate, test ports, no root. Stopped by the test's after().
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { Agent, request } from 'node:https';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestContext } from 'node:test';

export const NGINX = '/usr/sbin/nginx';

export async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as AddressInfo).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

export interface ProxyReply {
  status: number;
  headers: Record<string, unknown>;
  body: string;
  /** The first WebSocket frame's payload, when the request was an upgrade that succeeded. */
  upgraded?: string;
}

export interface CallOptions {
  method?: string;
  headers?: Record<string, string>;
  body?: string;
  /** The client's own address (any of 127.0.0.0/8): nginx sees each as another client. */
  localAddress?: string;
  agent?: Agent;
}

/** One HTTPS request through the proxy (self-signed certificate), or an upgrade. */
export function call(port: number, path: string, o: CallOptions = {}): Promise<ProxyReply> {
  return new Promise((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port, path, method: o.method ?? 'GET', headers: { host: 'pay.example.test', ...o.headers }, rejectUnauthorized: false, timeout: 10_000, localAddress: o.agent ? undefined : o.localAddress, agent: o.agent },
      (res) => {
        let body = '';
        res.on('data', (d) => (body += d));
        res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body }));
      },
    );
    req.on('upgrade', (res, socket) => {
      // The first WebSocket frame: the intent's state, sent by payd right after the upgrade.
      socket.once('data', (frame: Buffer) => {
        socket.destroy();
        const len = frame[1] & 0x7f;
        const start = len === 126 ? 4 : 2;
        resolve({ status: res.statusCode!, headers: res.headers, body: '', upgraded: frame.subarray(start).toString('utf8') });
      });
    });
    req.on('timeout', () => req.destroy(new Error(`timeout: ${path}`)));
    req.on('error', reject);
    req.end(o.body);
  });
}

/** A keep-alive client from its own loopback address (many requests without a TLS handshake each). */
export function clientAgent(localAddress: string): Agent {
  return new Agent({ keepAlive: true, maxSockets: 8, localAddress, rejectUnauthorized: false });
}

/**
 * Starts nginx with the shipped site config proxying to `upstreamPort` (on `o.tlsPort` if given);
 * returns its TLS and plain ports and its self-signed certificate for pay.example.test.
 */
export async function startNginx(t: TestContext, upstreamPort: number, o: { tlsPort?: number } = {}): Promise<{ tlsPort: number; httpPort: number; certFile: string }> {
  assert.ok(existsSync(NGINX), `nginx is not installed (${NGINX}): apt-get install nginx-light`);
  const dir = mkdtempSync(join(tmpdir(), 'payd-proxy-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1', '-subj', '/CN=pay.example.test', '-addext', 'subjectAltName=DNS:pay.example.test', '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem')], { stdio: 'ignore' });
  const tlsPort = o.tlsPort ?? (await freePort());
  const httpPort = await freePort();
  // The shipped example, with only what docs/operations.md says to edit (and test ports) changed.
  const site = readFileSync(new URL('../../config/nginx-payd.conf', import.meta.url), 'utf8')
    .replaceAll('pay.example.com', 'pay.example.test')
    .replace('/etc/letsencrypt/live/pay.example.test/fullchain.pem', join(dir, 'cert.pem'))
    .replace('/etc/letsencrypt/live/pay.example.test/privkey.pem', join(dir, 'key.pem'))
    .replace('listen 443 ssl http2;', `listen 127.0.0.1:${tlsPort} ssl http2;`)
    .replace('listen [::]:443 ssl http2;', '')
    .replace('listen 80;', `listen 127.0.0.1:${httpPort};`)
    .replace('listen [::]:80;', '')
    .replace('proxy_pass http://127.0.0.1:8080;', `proxy_pass http://127.0.0.1:${upstreamPort};`);
  assert.doesNotMatch(site, /:443\b|:8080\b|letsencrypt/, 'every edit point was found'); // \b: a test port such as 44373 is no edit point
  // What Debian's /etc/nginx/nginx.conf wraps around sites-enabled/*, minus what needs root.
  writeFileSync(
    join(dir, 'nginx.conf'),
    `worker_processes 1;\npid ${join(dir, 'nginx.pid')};\nerror_log ${join(dir, 'error.log')};\nevents { worker_connections 256; }\nhttp {\n  access_log off;\n  client_body_temp_path ${dir}/body; proxy_temp_path ${dir}/proxy; fastcgi_temp_path ${dir}/fcgi; uwsgi_temp_path ${dir}/uwsgi; scgi_temp_path ${dir}/scgi;\n${site}\n}\n`,
  );
  const nginx = spawn(NGINX, ['-p', dir, '-c', join(dir, 'nginx.conf'), '-g', 'daemon off;'], { stdio: ['ignore', 'ignore', 'pipe'] });
  let nginxErr = '';
  nginx.stderr.on('data', (d) => (nginxErr += d));
  t.after(() => nginx.kill('SIGTERM'));
  const deadline = Date.now() + 20_000;
  let health: ProxyReply | null = null;
  while (!health && Date.now() < deadline) {
    health = await call(tlsPort, '/healthz').catch(() => null);
    if (!health) await new Promise((r) => setTimeout(r, 200));
  }
  assert.ok(health, `nginx did not come up: ${nginxErr}${existsSync(join(dir, 'error.log')) ? readFileSync(join(dir, 'error.log'), 'utf8') : ''}`);
  assert.equal(health.status, 200);
  return { tlsPort, httpPort, certFile: join(dir, 'cert.pem') };
}
