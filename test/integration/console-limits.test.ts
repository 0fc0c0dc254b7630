// The console's session and sign-in limits over plain HTTP (the passkey ceremony itself runs in
// Chromium in console-flow.test.ts): an absolute session lifetime, failed sign-ins in the audit
// log, and a bounded table of anonymous sign-in challenges. Both stores: sessions, the audit log and
// the challenges are rows.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { directSession, startConsoleApp } from '../helpers/console.ts';
import { forEachStore } from '../helpers/stores.ts';

forEachStore((store) => {

  test('a session in use ends at server.console.maxSessionHours all the same; idle or not', async (t) => {
    const c = await startConsoleApp({ console: { enabled: true, idleMinutes: 30, maxSessionHours: 1 } }, await store.config());
    t.after(() => c.close());
    const s = await directSession(c.app, "Asha's phone");
    const get = () => fetch(`${c.origin}/console`, { headers: { cookie: s.cookie }, redirect: 'manual' });
    // Used every 20 minutes: never idle, for 40 minutes fine.
    for (let i = 0; i < 3; i++) {
      assert.equal((await get()).status, 200, `after ${i * 20} min`);
      c.clock.advance(20 * 60_000);
    }
    // 60 minutes after sign-in: signed out, though used 20 minutes ago.
    const late = await get();
    assert.equal(late.status, 303);
    assert.match(late.headers.get('location') ?? '', /\/console\/sign-in$/);
    const [session] = await c.app.consoleAccess.sessions();
    assert.equal(session!.state, 'expired');
  });

  test('a failed sign-in is written to the audit log with the address and why; anonymous sign-in challenges stay bounded', async (t) => {
    const c = await startConsoleApp({}, await store.config());
    t.after(() => c.close());
    const post = (path: string, body: unknown) => fetch(`${c.origin}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', origin: c.origin }, body: JSON.stringify(body) });
    const forged = await post('/console/webauthn/login', { response: { id: 'no-such-passkey', rawId: 'x', type: 'public-key', response: {} } });
    assert.equal(forged.status, 403);
    const rows = await c.app.db.selectFrom('audit_log').select(['actor', 'action', 'subject', 'details_json']).where('action', '=', 'console.sign-in-failed').execute();
    assert.equal(rows.length, 1);
    assert.equal(rows[0]!.actor, 'console:anonymous');
    assert.deepEqual(JSON.parse(rows[0]!.details_json!), { address: '127.0.0.1', passkey: 'no-such-passkey', why: 'this passkey is not registered here, or was revoked' });

    // Anyone may ask for a sign-in prompt; each is a stored challenge. Many more than the bound: the table stays at it.
    assert.equal((await post('/console/webauthn/login/options', {})).status, 200);
    for (let i = 0; i < 1_100; i++) await c.app.consoleAccess.loginOptions({ id: 'localhost', origin: c.origin, name: 'payd' });
    const pending = await c.app.db.selectFrom('console_challenges').select((eb) => eb.fn.countAll<string>().as('n')).where('purpose', '=', 'login').executeTakeFirstOrThrow();
    assert.ok(Number(pending.n) <= 1_000, `${pending.n} login challenges stored`);
    // The newest prompt is the one kept.
    const newest = await c.app.consoleAccess.loginOptions({ id: 'localhost', origin: c.origin, name: 'payd' });
    assert.ok(await c.app.db.selectFrom('console_challenges').select('challenge').where('challenge', '=', newest.challenge).executeTakeFirst());
  });
});
