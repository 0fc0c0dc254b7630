// The request line is written without pino's generic path (it is the one entry per request);
// operators and their log tooling must not be able to tell: it is byte for byte the line pino
// writes for the same entry, bindings and level included.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createLogger } from '../../../src/log/index.ts';

const at = Date.UTC(2026, 10, 23, 17, 4, 5, 6);

function both(level: 'debug' | 'info' | 'warn', entry: { method: string; path: string; status: number; ms: number; clientId?: string }, bindings: Record<string, unknown>) {
  const lines: string[] = [];
  const log = createLogger({ level, write: (l) => void lines.push(l), now: () => at }).child(bindings);
  log.request!(entry);
  const fast = lines.splice(0);
  log.info('request', { method: entry.method, path: entry.path, status: entry.status, ms: entry.ms, client_id: entry.clientId });
  return { fast, pino: lines };
}

test('the request line is exactly what pino writes for info("request", …), with and without a client id', () => {
  for (const entry of [
    { method: 'GET', path: '/api/v1/intents/0b3f6a3e-7f7b-4c9e-9d2a-1a2b3c4d5e6f', status: 200, ms: 3, clientId: '1b3f6a3e-7f7b-4c9e-9d2a-1a2b3c4d5e6f' },
    // Anonymous traffic: no client id; a path with characters JSON must escape.
    { method: 'POST', path: '/pay/"quoted"\\back\u0001é', status: 404, ms: 0 },
  ]) {
    const { fast, pino } = both('info', entry, { component: 'http' });
    assert.equal(fast.length, 1);
    assert.deepEqual(fast, pino);
    const line = JSON.parse(fast[0]!);
    assert.equal(line.path, entry.path);
    assert.equal(line.time, '2026-11-23T17:04:05.006Z');
    assert.equal(line.client_id, entry.clientId);
  }
});

test('the request line carries its logger’s bindings, redacted like every other entry, and respects the level', () => {
  const entry = { method: 'GET', path: '/healthz', status: 200, ms: 1 };
  const { fast, pino } = both('debug', entry, { component: 'http', api_key: 'k-123', node: 2 });
  assert.deepEqual(fast, pino);
  assert.ok(!fast[0]!.includes('k-123'));
  assert.equal(JSON.parse(fast[0]!).api_key, '[redacted]');
  // A binding JSON cannot write does not break the logger.
  const cyclic: Record<string, unknown> = {};
  cyclic.self = cyclic;
  const lines: string[] = [];
  createLogger({ write: (l) => void lines.push(l) }).child({ component: 'http', cyclic }).request!(entry);
  assert.equal(JSON.parse(lines[0]!).path, '/healthz');
  // At warn, info lines are off: neither way writes one.
  const quiet = both('warn', entry, { component: 'http' });
  assert.deepEqual([quiet.fast, quiet.pino], [[], []]);
});
