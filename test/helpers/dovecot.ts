// A throw-away rootless Dovecot 2.3 IMAP server on 127.0.0.1 for integration tests.
// User "payd" / password "secret", Maildir storage in a temp dir, plaintext auth (loopback only).
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { Secret } from '../../src/config/secret.ts';
import type { UpiSourceConfig } from '../../src/methods/upi/imap-source.ts';
import { chownSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, renameSync, rmSync, writeFileSync, chmodSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { tmpdir, userInfo } from 'node:os';
import { basename, join } from 'node:path';
import type { TestContext } from 'node:test';
import { ImapFlow } from 'imapflow';
import { dnsStub } from './dns-stub.ts';

const DOVECOT = '/usr/sbin/dovecot';
const START_TIMEOUT_MS = 10_000;
const STOP_TIMEOUT_MS = 5_000;

export interface Dovecot {
  readonly host: string;
  readonly port: number;
  readonly user: string;
  readonly password: string;
  /** APPENDs one message; returns its UID. */
  append(raw: string | Buffer, opts?: { mailbox?: string; internalDate?: Date }): Promise<number>;
  /** The flags of one message, e.g. to prove \Seen was never set. */
  flags(uid: number, mailbox?: string): Promise<string[]>;
  uidValidity(mailbox?: string): Promise<string>;
  createMailbox(name: string): Promise<void>;
  /** Drops a message straight into the Maildir, as a local delivery agent would; works while stopped. */
  deliver(raw: string | Buffer, mailbox?: string): void;
  /** Deletes and re-creates a mailbox: its UIDVALIDITY changes and its mail is gone. */
  recreateMailbox(name: string): Promise<void>;
  /** Stops the server (waits until the process is gone); mail and port are kept for restart(). */
  stop(): Promise<void>;
  /** Starts it again on the same port with the same mail. */
  restart(): Promise<void>;
  /** Stops the server and deletes its directory. */
  dispose(): Promise<void>;
  /** Ends every IMAP session of the user from the server side (`doveadm kick`), as a provider's idle timeout does. */
  kick(): Promise<void>;
  /** Dovecot's own log so far (auth failures and the like). */
  log(): string;
}

export interface DovecotOptions {
  /**
   * Also accept OAuth 2.0 bearer tokens (XOAUTH2, OAUTHBEARER) through Dovecot's oauth2 passdb,
   * which asks this RFC 7662 introspection endpoint (form POST `token=…`) whether a token is active.
   */
  oauth2?: { introspectionUrl: string };
}

/** Fails with a clear message when Dovecot is missing: integration tests must not silently pass. */
export function requireDovecot(): void {
  if (!existsSync(DOVECOT)) {
    throw new Error(`Dovecot is not installed (${DOVECOT} missing): apt-get install -y dovecot-imapd`);
  }
}

export async function startDovecot(opts: DovecotOptions = {}): Promise<Dovecot> {
  requireDovecot();
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'payd-dovecot-'));
  const runAs = processUser();
  // Unique per server: its processes are named "dovecot-<instance>/…", which sweep() relies on.
  const instance = `payd-test-${basename(dir).replace(/^payd-dovecot-/, '')}`;
  writeConfig(dir, port, runAs, instance, opts);
  let child: ChildProcess | undefined;
  let delivered = 0;

  const imap = async <T>(fn: (c: ImapFlow) => Promise<T>): Promise<T> => {
    const c = new ImapFlow({ host: '127.0.0.1', port, secure: false, auth: { user: 'payd', pass: 'secret' }, logger: false, disableAutoIdle: true });
    c.on('error', () => {});
    await c.connect();
    try {
      return await fn(c);
    } finally {
      await c.logout().catch(() => c.close());
    }
  };

  const start = async () => {
    // Dovecot will not run as root with this config: as root (CI) the master runs as nobody.
    // Node drops to that uid/gid itself (and clears supplementary groups) rather than going
    // through runuser, whose signal forwarding killed the master without its children.
    const drop = runAs.root ? { uid: runAs.uid, gid: runAs.gid } : {};
    child = spawn(DOVECOT, ['-F', '-c', join(dir, 'dovecot.conf')], { stdio: 'ignore', ...drop });
    let exited: number | null | undefined;
    child.once('exit', (code) => (exited = code));
    const deadline = Date.now() + START_TIMEOUT_MS;
    while (!(await accepts(port))) {
      if (exited !== undefined) throw new Error(`dovecot exited with ${exited} on start:\n${logTail(dir)}`);
      if (Date.now() > deadline) {
        await stop();
        throw new Error(`dovecot did not listen on 127.0.0.1:${port} within ${START_TIMEOUT_MS} ms:\n${logTail(dir)}`);
      }
      await delay(50);
    }
  };

  const stop = async () => {
    const c = child;
    child = undefined;
    if (c && c.exitCode === null && c.signalCode === null) {
      const gone = new Promise<void>((resolve) => c.once('exit', () => resolve()));
      c.kill('SIGTERM'); // the master stops its services and, by default, its IMAP sessions
      const timedOut = await Promise.race([gone.then(() => false), delay(STOP_TIMEOUT_MS).then(() => true)]);
      if (timedOut) c.kill('SIGKILL');
    }
    await sweep(instance);
    const deadline = Date.now() + STOP_TIMEOUT_MS;
    while ((await accepts(port)) && Date.now() < deadline) await delay(50);
  };

  // Safety net if the test process dies before its after hook: never leave a server behind.
  const onExit = () => child?.kill('SIGTERM');
  process.once('exit', onExit);
  await start();
  return {
    host: '127.0.0.1',
    port,
    user: 'payd',
    password: 'secret',
    append: (raw, opts = {}) =>
      imap(async (c) => {
        const res = await c.append(opts.mailbox ?? 'INBOX', raw, [], opts.internalDate);
        if (!res || !res.uid) throw new Error('APPEND returned no UID (UIDPLUS expected from Dovecot)');
        return res.uid;
      }),
    flags: (uid, mailbox = 'INBOX') =>
      imap(async (c) => {
        await c.mailboxOpen(mailbox, { readOnly: true });
        const msg = await c.fetchOne(String(uid), { uid: true, flags: true }, { uid: true });
        if (!msg) throw new Error(`no message with UID ${uid} in ${mailbox}`);
        return [...(msg.flags ?? [])];
      }),
    uidValidity: (mailbox = 'INBOX') =>
      imap(async (c) => {
        const st = await c.status(mailbox, { uidValidity: true });
        return String(st && st.uidValidity);
      }),
    deliver: (raw, mailbox = 'INBOX') => {
      // Maildir++ layout: INBOX is the user's root, other mailboxes are ".Name" beside it.
      const box = join(dir, 'mail', 'payd', mailbox === 'INBOX' ? '' : '.' + mailbox.replaceAll('/', '.'));
      const name = `${Date.now()}.${process.pid}_${++delivered}.payd-test`;
      // Written in tmp/ and renamed into new/, so the server never sees half a message.
      writeFileSync(join(box, 'tmp', name), raw);
      if (runAs.root) chownSync(join(box, 'tmp', name), runAs.uid, runAs.gid);
      renameSync(join(box, 'tmp', name), join(box, 'new', name));
    },
    createMailbox: (name) => imap(async (c) => void (await c.mailboxCreate(name))),
    recreateMailbox: (name) =>
      imap(async (c) => {
        await c.mailboxDelete(name);
        await c.mailboxCreate(name);
      }),
    stop,
    restart: async () => {
      await stop();
      await start();
    },
    kick: async () => {
      const r = spawnSync('/usr/bin/doveadm', ['-c', join(dir, 'dovecot.conf'), 'kick', 'payd'], { encoding: 'utf8', timeout: STOP_TIMEOUT_MS });
      if (r.status !== 0) throw new Error(`doveadm kick failed (${r.status}): ${r.stderr || r.stdout}`);
    },
    log: () => (existsSync(join(dir, 'dovecot.log')) ? readFileSync(join(dir, 'dovecot.log'), 'utf8') : ''),
    dispose: async () => {
      process.removeListener('exit', onExit);
      await stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

interface RunAs {
  root: boolean;
  name: string;
  group: string;
  uid: number;
  gid: number;
}

function processUser(): RunAs {
  const me = userInfo();
  if (me.uid !== 0) {
    const group = spawnSync('id', ['-gn'], { encoding: 'utf8' }).stdout.trim();
    return { root: false, name: me.username, group, uid: me.uid, gid: me.gid };
  }
  const id = (flag: string) => spawnSync('id', [flag, 'nobody'], { encoding: 'utf8' }).stdout.trim();
  return { root: true, name: 'nobody', group: id('-gn'), uid: Number(id('-u')), gid: Number(id('-g')) };
}

function writeConfig(dir: string, port: number, u: RunAs, instance: string, opts: DovecotOptions): void {
  for (const sub of ['run', 'state', 'mail', 'home']) mkdirSync(join(dir, sub));
  writeFileSync(join(dir, 'users'), 'payd:{PLAIN}secret::::::\n');
  // Dovecot 2.3's oauth2 passdb: the token is valid while the introspection endpoint says active=true;
  // no auth cache, so an expired or revoked token is refused on the very next login.
  const oauth = opts.oauth2
    ? `passdb {
  driver = oauth2
  mechanisms = xoauth2 oauthbearer
  args = ${dir}/oauth2.conf.ext
}
`
    : '';
  if (opts.oauth2) {
    writeFileSync(
      join(dir, 'oauth2.conf.ext'),
      `introspection_mode = post
introspection_url = ${opts.oauth2.introspectionUrl}
force_introspection = yes
username_attribute = username
active_attribute = active
active_value = true
`,
    );
  }
  writeFileSync(
    join(dir, 'dovecot.conf'),
    `# minimal rootless Dovecot 2.3 for payd's tests
instance_name = ${instance}
base_dir = ${dir}/run
state_dir = ${dir}/state
log_path = ${dir}/dovecot.log
info_log_path = ${dir}/dovecot.log
protocols = imap
listen = 127.0.0.1
ssl = no
disable_plaintext_auth = no
auth_mechanisms = plain login${opts.oauth2 ? ' xoauth2 oauthbearer' : ''}
default_internal_user = ${u.name}
default_internal_group = ${u.group}
default_login_user = ${u.name}
first_valid_uid = ${u.uid}
last_valid_uid = ${u.uid}
first_valid_gid = ${u.gid}
last_valid_gid = ${u.gid}
mail_location = maildir:${dir}/mail/%n
namespace inbox {
  inbox = yes
  separator = /
}
${oauth}passdb {
  driver = passwd-file
  mechanisms = plain login
  args = scheme=PLAIN username_format=%n ${dir}/users
}
userdb {
  driver = static
  args = uid=${u.uid} gid=${u.gid} home=${dir}/home/%n
}
service imap-login {
  chroot =
  user = ${u.name}
  inet_listener imap {
    address = 127.0.0.1
    port = ${port}
  }
  inet_listener imaps {
    port = 0
  }
}
service anvil {
  chroot =
}
service doveadm {
  user = ${u.name}
}
service stats {
  unix_listener stats-reader {
    user = ${u.name}
    group = ${u.group}
    mode = 0660
  }
  unix_listener stats-writer {
    user = ${u.name}
    group = ${u.group}
    mode = 0660
  }
}
`,
  );
  if (u.root) chownTree(dir, u.uid, u.gid);
  chmodSync(join(dir, 'run'), 0o755);
}

function chownTree(path: string, uid: number, gid: number): void {
  chownSync(path, uid, gid);
  for (const e of readdirSync(path, { withFileTypes: true })) {
    const p = join(path, e.name);
    if (e.isDirectory()) chownTree(p, uid, gid);
    else chownSync(p, uid, gid);
  }
}

/**
 * Ends the processes of this server instance that outlive the master (ours by instance name):
 * with -F, Dovecot leaves its IMAP sessions, log and stats running after SIGTERM.
 */
async function sweep(instance: string): Promise<void> {
  const prefix = `dovecot-${instance}/`;
  const find = () =>
    readdirSync('/proc')
      .filter((p) => /^\d+$/.test(p))
      .filter((p) => {
        try {
          return readFileSync(join('/proc', p, 'cmdline'), 'utf8').startsWith(prefix);
        } catch {
          return false; // exited meanwhile
        }
      })
      .map(Number);
  const signal = (pids: number[], sig: NodeJS.Signals) => {
    for (const pid of pids) {
      try {
        process.kill(pid, sig);
      } catch {
        // already gone
      }
    }
  };
  signal(find(), 'SIGTERM');
  const deadline = Date.now() + STOP_TIMEOUT_MS;
  let left = find();
  while (left.length > 0 && Date.now() < deadline) {
    await delay(50);
    left = find();
  }
  signal(left, 'SIGKILL');
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = connect({ host: '127.0.0.1', port });
    const done = (ok: boolean) => {
      s.destroy();
      resolve(ok);
    };
    s.setTimeout(500, () => done(false));
    s.once('connect', () => done(true));
    s.once('error', () => done(false));
  });
}

function logTail(dir: string): string {
  const file = join(dir, 'dovecot.log');
  return existsSync(file) ? readFileSync(file, 'utf8').split('\n').slice(-20).join('\n') : '(no dovecot.log)';
}

const delay = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/**
 * The `methods.UPI` section of a daemon config (JSON, as an operator writes it) reading this
 * Dovecot's INBOX, DKIM required against the test's DNS server; `over` adds or replaces keys.
 */
/** A Dovecot and a DNS server answering `zone` (the alerts' DKIM keys) on loopback, both stopped after the test. */
export async function mailboxWithDns(t: TestContext, zone: Record<string, string[][]>): Promise<{ dovecot: Dovecot; dnsServer: string }> {
  const dns = dnsStub(zone);
  const dnsServer = await dns.start();
  t.after(() => dns.stop());
  const dovecot = await startDovecot();
  t.after(() => dovecot.dispose());
  return { dovecot, dnsServer };
}

export function upiDaemonSection(dovecot: Dovecot, dnsServer: string, over: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    vpa: 'shop@hdfcbank',
    payeeName: 'Example Shop',
    imap: { host: dovecot.host, port: dovecot.port, secure: false, user: dovecot.user, password: dovecot.password },
    alertRecipients: ['merchant.payd@example.com'],
    accounts: [{ bank: 'hdfc', accountEnding: '4321' }],
    dkim: { required: true, dnsServers: [dnsServer] },
    ...over,
  };
}

/** A UPI source config reading `mailbox` on this Dovecot (DKIM required, no DNS servers: tests pass a resolver). */
export function upiSourceConfig(dovecot: Dovecot, mailbox = 'INBOX', imap: Partial<UpiSourceConfig['imap']> = {}): UpiSourceConfig {
  return {
    vpa: 'shop@hdfcbank',
    payeeName: 'Test Shop',
    maxOffsetSteps: 100,
    imap: {
      host: dovecot.host,
      port: dovecot.port,
      secure: false,
      user: dovecot.user,
      password: new Secret(dovecot.password),
      mailbox,
      backfillHours: 24,
      resyncSeconds: 300, // long: prompt delivery must come from IDLE, not from the timer
      ...imap,
    },
    // The test alerts are addressed (and signed) to this mailbox's owner.
    alertRecipients: ['merchant.payd@example.com'],
    maxLagSeconds: 600,
    accounts: [{ bank: 'hdfc', accountEnding: '4321' }],
    maxMessageBytes: 262_144,
    inspectTimeoutSeconds: 5,
    keepRejectedDays: 90,
    dkim: { required: true, dnsServers: [], retryHours: 24 },
  };
}
