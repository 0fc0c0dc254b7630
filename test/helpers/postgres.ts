// A throw-away PostgreSQL cluster on 127.0.0.1 for tests, from Debian's `postgresql` package:
// initdb + pg_ctl in a temp dir, as an unprivileged user (nobody when the tests run as root,
// as the Dovecot helper does), trust auth on loopback, fsync off (nothing here must survive a crash).
// One cluster per test file (starting one costs 1-2 s); each test takes its own database.
import { spawn, spawnSync } from 'node:child_process';
import { chownSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';

const START_TIMEOUT_S = 60; // the shared 2-core machine can be slow to run initdb's checkpoint
const USER = 'payd';

export interface Postgres {
  /** postgres:// URL of a fresh, empty database in the cluster. */
  url: string;
  /** Stops the cluster at once (`pg_ctl stop -m immediate`) and deletes its directory. */
  stop(): Promise<void>;
  /** The server's port on 127.0.0.1. */
  port: number;
  /** `pg_ctl restart -m fast`: sessions are ended (57P01 to those mid-query), the server is back when this resolves. */
  restartFast(): Promise<void>;
  /** `kill -9` of the postmaster (a crash), then a start (with crash recovery); resolves once it accepts connections. */
  crashAndStart(): Promise<void>;
}

/** Finds initdb/pg_ctl: Debian keeps them in /usr/lib/postgresql/<version>/bin, off PATH. */
export function postgresBinDir(): string {
  const candidates: string[] = [];
  const root = '/usr/lib/postgresql';
  if (existsSync(root)) {
    const versions = readdirSync(root).filter((v) => /^\d+$/.test(v)).sort((a, b) => Number(b) - Number(a));
    candidates.push(...versions.map((v) => join(root, v, 'bin')));
  }
  const cfg = spawnSync('pg_config', ['--bindir'], { encoding: 'utf8' });
  if (cfg.status === 0) candidates.push(cfg.stdout.trim());
  const found = candidates.find((dir) => existsSync(join(dir, 'initdb')) && existsSync(join(dir, 'pg_ctl')));
  if (!found) {
    throw new Error(`PostgreSQL server binaries not found (looked for initdb and pg_ctl in ${candidates.join(', ') || '/usr/lib/postgresql/*/bin'}): apt-get install -y postgresql`);
  }
  return found;
}

/** `durable`: keep PostgreSQL's crash-safe defaults (fsync, synchronous_commit, full_page_writes), as the bench does. */
export async function startPostgres(o: { durable?: boolean } = {}): Promise<Postgres> {
  const bin = postgresBinDir();
  const runAs = processUser();
  const dir = mkdtempSync(join(tmpdir(), 'payd-pg-'));
  const data = join(dir, 'data');
  mkdirSync(data, { mode: 0o700 });
  if (runAs.root) {
    chownSync(dir, runAs.uid, runAs.gid);
    chownSync(data, runAs.uid, runAs.gid);
  }
  const run = (cmd: string, args: string[], what: string) => {
    const argv = runAs.root ? ['runuser', '-u', runAs.name, '--', join(bin, cmd), ...args] : [join(bin, cmd), ...args];
    const r = spawnSync(argv[0]!, argv.slice(1), { encoding: 'utf8', cwd: dir, timeout: (START_TIMEOUT_S + 10) * 1000 });
    if (r.status !== 0) {
      const log = existsSync(join(dir, 'server.log')) ? readFileSync(join(dir, 'server.log'), 'utf8').slice(-2000) : '';
      throw new Error(`${what} failed (${r.status ?? r.signal}): ${r.stderr || r.stdout}${log ? `\nserver log:\n${log}` : ''}`);
    }
  };
  const ctlStop = () => {
    const argv = runAs.root ? ['runuser', '-u', runAs.name, '--', join(bin, 'pg_ctl')] : [join(bin, 'pg_ctl')];
    spawnSync(argv[0]!, [...argv.slice(1), 'stop', '-D', data, '-m', 'immediate', '-w', '-t', '20'], { stdio: 'ignore', timeout: 30_000 });
  };

  const serverOpts = (port: number) => {
    const fast = o.durable ? [] : ['-c fsync=off', '-c synchronous_commit=off', '-c full_page_writes=off'];
    return [`-p ${port}`, `-k ${dir}`, "-c listen_addresses='127.0.0.1'", ...fast, '-c max_connections=200'].join(' ');
  };

  let started = false;
  const onExit = () => {
    // Safety net if the test process dies before its after hook: never leave a server behind.
    if (started) ctlStop();
    rmSync(dir, { recursive: true, force: true });
  };
  process.once('exit', onExit);
  try {
    run('initdb', ['-D', data, '-U', USER, '--auth=trust', '-E', 'UTF8', '--locale=C', '--no-sync'], 'initdb');
    let port = 0;
    // A free port can be taken between our probe and the server's bind: try a few.
    for (let attempt = 1; ; attempt++) {
      port = await freePort();
      try {
        run('pg_ctl', ['start', '-D', data, '-l', join(dir, 'server.log'), '-w', '-t', String(START_TIMEOUT_S), '-o', serverOpts(port)], 'pg_ctl start');
        started = true;
        break;
      } catch (err) {
        if (attempt >= 3 || !/could not bind|address already in use/i.test(String(err))) throw err;
      }
    }
    const admin = `postgres://${USER}@127.0.0.1:${port}/postgres`;
    const url = await createDatabase(admin, 'payd');
    const opts = serverOpts(port);
    const ctl = (args: string[], what: string) => runAsync('pg_ctl', [...args, '-D', data, '-w', '-t', String(START_TIMEOUT_S)], what);
    const runAsync = (cmd: string, args: string[], what: string) =>
      new Promise<void>((resolve, reject) => {
        const argv = runAs.root ? ['runuser', '-u', runAs.name, '--', join(bin, cmd), ...args] : [join(bin, cmd), ...args];
        const child = spawn(argv[0]!, argv.slice(1), { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] });
        let err = '';
        child.stderr.on('data', (d) => (err += d));
        child.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`${what} failed (${code}): ${err}`))));
      });
    return {
      url,
      port,
      restartFast: () => ctl(['restart', '-m', 'fast', '-l', join(dir, 'server.log'), '-o', opts], 'pg_ctl restart'),
      crashAndStart: async () => {
        const pid = Number(readFileSync(join(data, 'postmaster.pid'), 'utf8').split('\n')[0]);
        process.kill(pid, 'SIGKILL');
        // The old backends leave once they see their postmaster gone; until then a new one
        // refuses to start on the same shared memory.
        for (let attempt = 1; ; attempt++) {
          try {
            await ctl(['start', '-l', join(dir, 'server.log'), '-o', opts], 'pg_ctl start after kill -9');
            return;
          } catch (err) {
            if (attempt >= 20) throw err;
            await new Promise((r) => setTimeout(r, 250));
          }
        }
      },
      stop: async () => {
        process.removeListener('exit', onExit);
        onExit();
        started = false;
      },
    };
  } catch (err) {
    process.removeListener('exit', onExit);
    onExit();
    throw err;
  }
}

/** Creates database `name` in the cluster of `url` and returns its URL (the same user and server). */
export async function createDatabase(url: string, name: string): Promise<string> {
  if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new Error(`not a plain database name: ${name}`);
  const { default: pg } = await import('pg');
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(`CREATE DATABASE ${name}`);
  } finally {
    await client.end();
  }
  const u = new URL(url);
  u.pathname = `/${name}`;
  return u.toString();
}

let counter = 0;
/** A fresh empty database with a unique name (one per test). */
export function freshDatabase(url: string, prefix = 't'): Promise<string> {
  return createDatabase(url, `${prefix}_${process.pid}_${++counter}`);
}

interface RunAs {
  root: boolean;
  name: string;
  uid: number;
  gid: number;
}

function processUser(): RunAs {
  const me = userInfo();
  if (me.uid !== 0) return { root: false, name: me.username, uid: me.uid, gid: me.gid };
  const id = (flag: string) => spawnSync('id', [flag, 'nobody'], { encoding: 'utf8' }).stdout.trim();
  return { root: true, name: 'nobody', uid: Number(id('-u')), gid: Number(id('-g')) };
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
  });
}
