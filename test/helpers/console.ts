// The operator console in headless Chromium: a sandbox payd with server.console on, a page
// holding a virtual passkey authenticator (Chrome DevTools Protocol, WebAuthn domain).
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CDPSession, Page } from 'playwright-core';
import { createApp, type App } from '../../src/app/index.ts';
import { parseConfig } from '../../src/methods/load-config.ts';
import { silentLogger } from '../../src/log/index.ts';
import { systemRandom } from '../../src/system.ts';
import { shiftableClock, type Browser } from './browser.ts';

export interface ConsoleApp {
  app: App;
  /** http://localhost:<port>: a host name (passkeys cannot be bound to 127.0.0.1). */
  origin: string;
  clock: ReturnType<typeof shiftableClock>;
  close(): Promise<void>;
}

/** A sandbox payd (HTTP only, no workers) on 127.0.0.1 with the console on; `server` adds server keys. */
export async function startConsoleApp(server: Record<string, unknown> = {}): Promise<ConsoleApp> {
  const dir = mkdtempSync(join(tmpdir(), 'payd-console-'));
  const clock = shiftableClock();
  // The per-IP limit is off: every page, asset and request of a browser run comes from 127.0.0.1.
  const config = parseConfig({ database: { file: join(dir, 'payd.sqlite') }, server: { host: '127.0.0.1', port: 0, publicRateLimit: { perSecond: 0, burst: 1 }, console: { enabled: true }, ...server } }, dir);
  const app = await createApp({ config, sandbox: true, clock, random: systemRandom, log: silentLogger() });
  try {
    await app.start({ http: true, workers: false });
  } catch (err) {
    await app.close();
    throw err;
  }
  return {
    app,
    origin: app.consoleOrigin(),
    clock,
    async close() {
      await app.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A page with a platform passkey authenticator (user verification succeeds), as a phone has. */
export async function passkeyPage(browser: Browser): Promise<{ page: Page; cdp: CDPSession; problems: string[] }> {
  const page = await browser.newPage();
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('WebAuthn.enable');
  await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: { protocol: 'ctap2', transport: 'internal', hasResidentKey: true, hasUserVerification: true, isUserVerified: true, automaticPresenceSimulation: true },
  });
  const problems: string[] = [];
  page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
  page.on('console', (m) => {
    if (m.type() === 'error') problems.push(`console: ${m.text()}`);
  });
  // Destructive forms ask first (console.js): the operator says yes.
  page.on('dialog', (d) => void d.accept());
  return { page, cdp, problems };
}

/** Opens the invite link and creates the passkey; resolves on the Today page. */
export async function registerWithInvite(page: Page, url: string): Promise<void> {
  await page.goto(url);
  await page.getByRole('button', { name: 'Create passkey' }).click();
  await page.waitForURL(/\/console$/, { timeout: 15_000 });
}

export async function signInWithPasskey(page: Page, origin: string): Promise<void> {
  await page.goto(`${origin}/console/sign-in`);
  await page.getByRole('button', { name: 'Sign in with passkey' }).click();
  await page.waitForURL(/\/console$/, { timeout: 15_000 });
}

const require = createRequire(import.meta.url);
let axeSource: string | null = null;

/**
 * axe-core's serious and critical violations on the page. Injected through the DevTools
 * protocol (page.evaluate), which the page's CSP does not govern, so the CSP stays as served.
 */
export async function axeViolations(page: Page): Promise<Array<{ id: string; impact: string; help: string; nodes: string[] }>> {
  axeSource ??= readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');
  await page.evaluate(axeSource);
  const result = await page.evaluate(async () => {
    const axe = (globalThis as unknown as { axe: { run(ctx: unknown, o: unknown): Promise<{ violations: Array<{ id: string; impact: string; help: string; nodes: Array<{ target: string[] }> }> }> } }).axe;
    const r = await axe.run(document, { resultTypes: ['violations'] });
    return r.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map((n) => n.target.join(' ')) }));
  });
  return result.filter((v) => v.impact === 'serious' || v.impact === 'critical');
}

/**
 * A signed-in session written straight into the database (for tests of the console's actions
 * over plain HTTP; the passkey ceremony itself is proven in Chromium by console-flow.test.ts).
 */
export async function directSession(app: App, name: string): Promise<{ cookie: string; csrf: string; id: string }> {
  const { createHash, randomBytes } = await import('node:crypto');
  const token = randomBytes(32).toString('base64url');
  const csrf = randomBytes(32).toString('base64url');
  const id = `cs_${randomBytes(8).toString('hex')}`;
  const now = Date.now();
  const passkey = `cred-${id}`;
  await app.db.insertInto('console_passkeys').values({ id: passkey, name, public_key: 'x', counter: 0, transports: null, created_at: now, last_used_at: now, revoked_at: null }).execute();
  await app.db.insertInto('console_sessions').values({ id, token_hash: createHash('sha256').update(token).digest('hex'), passkey_id: passkey, csrf, address: null, created_at: now, last_seen_at: now, revoked_at: null }).execute();
  return { cookie: `payd_console=${token}`, csrf, id };
}
