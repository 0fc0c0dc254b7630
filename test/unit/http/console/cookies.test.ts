import { test } from 'node:test';
import assert from 'node:assert/strict';
import { clearedCookie, readCookie, sessionCookie } from '../../../../src/http/console/cookies.ts';

test('the session cookie: HttpOnly, SameSite=Strict, /console only; Secure when asked', () => {
  assert.equal(sessionCookie('tok', false), 'payd_console=tok; Path=/console; HttpOnly; SameSite=Strict');
  assert.equal(sessionCookie('tok', true), 'payd_console=tok; Path=/console; HttpOnly; SameSite=Strict; Secure');
  assert.match(clearedCookie(true), /^payd_console=; Path=\/console; HttpOnly; SameSite=Strict; Max-Age=0; Secure$/);
});

test('readCookie finds the named cookie only, exactly', () => {
  assert.equal(readCookie('a=1; payd_console=abc; b=2', 'payd_console'), 'abc');
  assert.equal(readCookie('xpayd_console=evil; payd_console_x=evil', 'payd_console'), undefined);
  assert.equal(readCookie(undefined, 'payd_console'), undefined);
  assert.equal(readCookie('payd_console', 'payd_console'), undefined);
});
