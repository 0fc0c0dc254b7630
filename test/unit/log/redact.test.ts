// The log's redaction: entries with nothing to hide pass through uncopied (the request line), any
// secret-looking field is replaced, bigints and errors are made printable.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createLogger, redact } from '../../../src/log/index.ts';

test('redact: a clean entry is handed on as it is; secret fields are replaced in a copy', () => {
  const clean = { method: 'GET', path: '/api/v1/intents/x', status: 200, ms: 1, client_id: 'abc' };
  assert.equal(redact(clean), clean);
  const dirty = { client_secret: 'sk_live_x', refreshToken: 't', Authorization: 'Bearer y', amount: 10n, error: new Error('boom'), ok: true };
  const out = redact(dirty);
  assert.notEqual(out, dirty);
  assert.deepEqual(out, { client_secret: '[redacted]', refreshToken: '[redacted]', Authorization: '[redacted]', amount: '10', error: 'boom', ok: true });
  assert.equal(dirty.client_secret, 'sk_live_x', 'the caller’s object is left alone');
});

test('the logger writes no secret, in entries and in child bindings, while clean lines keep their fields', () => {
  const lines: string[] = [];
  const log = createLogger({ level: 'debug', write: (l) => void lines.push(l), now: () => Date.UTC(2026, 0, 2, 3, 4, 5, 6) });
  log.child({ component: 'http', api_key: 'k-123' }).info('request', { method: 'GET', status: 200 });
  log.warn('token refresh', { refresh_token: 'r-456', user: 'ops' });
  const text = lines.join('\n');
  assert.ok(!text.includes('k-123') && !text.includes('r-456'), text);
  const [first, second] = lines.map((l) => JSON.parse(l));
  assert.equal(first.time, '2026-01-02T03:04:05.006Z');
  assert.equal(first.method, 'GET');
  assert.equal(first.api_key, '[redacted]');
  assert.equal(second.refresh_token, '[redacted]');
  assert.equal(second.user, 'ops');
});
