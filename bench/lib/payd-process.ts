// payd as operators run it: `bin/payd serve` (compiled dist/) in its own process, with its
// default logging (JSON lines on stderr) redirected to a file, on a config file in a
// fresh directory. Also: timing one CLI command, and reading a process's RSS.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { benchConfig } from './harness.ts';

export const PAYD_BIN = fileURLToPath(new URL('../../bin/payd', import.meta.url));
const DIST_MAIN = fileURLToPath(new URL('../../dist/main.js', import.meta.url));

/** The bench measures what users run: the compiled build. Builds it if it is missing or stale. */
export function ensureBuild(progress: (m: string) => void): void {
  progress('building dist/ (npm run build)');
  const r = spawnSync(process.execPath, [fileURLToPath(new URL('../../scripts/build.mjs', import.meta.url))], { stdio: 'inherit' });
  if (r.status !== 0) throw new Error('npm run build failed');
  readFileSync(DIST_MAIN); // fails loudly if the build did not produce the entry
}

export interface PaydDir {
  dir: string;
  configFile: string;
  dbFile: string;
  headers: Record<string, string>;
  clientId: string;
  close(): void;
}

const EVM_ADDRESS = '0x90F79bf6EB2c4f870365E785982E1f101E93b906';
const EVM_RPC = { ETH: 'https://ethereum-rpc.publicnode.com', BSC: 'https://bsc-rpc.publicnode.com', POLYGON: 'https://polygon-bor-rpc.publicnode.com', ARBITRUM: 'https://arbitrum-one-rpc.publicnode.com', BASE: 'https://base-rpc.publicnode.com' };

/**
 * Every method as the docs configure them, upstreams by their public host names (unreachable
 * from the bench: name lookups fail), instead of closed loopback ports that fail before any lookup.
 */
function documentedMethods(methods: Record<string, any>): Record<string, any> {
  const evm = Object.fromEntries(
    ['USDT_ETH', 'USDC_ETH', 'USDT_BSC', 'USDC_BSC', 'USDT_POLYGON', 'USDC_POLYGON', 'USDT_ARBITRUM', 'USDC_ARBITRUM', 'USDC_BASE'].map((m) => [m, { address: EVM_ADDRESS, rpcUrl: EVM_RPC[m.split('_')[1] as keyof typeof EVM_RPC] }]),
  );
  return {
    UPI: { ...methods.UPI, imap: { host: 'imap.example.com', port: 993, secure: true, user: 'alerts@example.com', password: 'x' } },
    USDT_TRC20: { ...methods.USDT_TRC20, apiUrl: 'https://api.trongrid.io' },
    SOL: { ...methods.SOL, rpcUrl: 'https://api.mainnet-beta.solana.com' },
    USDT_SOL: { ...methods.USDT_SOL, rpcUrl: 'https://api.mainnet-beta.solana.com' },
    USDC_SOL: { wallet: methods.SOL.wallet, rpcUrl: 'https://api.mainnet-beta.solana.com' },
    ...evm,
  };
}

/**
 * A directory (under `parent`, default the temp dir) with payd.config.json (every method configured, upstreams on closed loopback ports) and one merchant made by the real CLI
 * (`bin`'s, for another build: its database is created by the build that serves it).
 */
export function preparePaydDir(o: { methods?: 'all' | 'none' | 'documented' | string[]; logLevel?: string; parent?: string; bin?: string } = {}): PaydDir {
  const dir = mkdtempSync(join(o.parent ?? tmpdir(), 'payd-bench-'));
  const config = benchConfig(dir) as Record<string, any>;
  if (o.methods === 'documented') config.methods = documentedMethods(config.methods);
  if (o.methods === 'none') config.methods = {};
  else if (Array.isArray(o.methods)) config.methods = Object.fromEntries(o.methods.map((m) => [m, config.methods[m]]));
  if (o.logLevel) config.log = { ...config.log, level: o.logLevel };
  const configFile = join(dir, 'payd.config.json');
  writeFileSync(configFile, JSON.stringify(config, null, 2));
  const r = spawnSync(process.execPath, [o.bin ?? PAYD_BIN, '--config', configFile, 'merchant', 'create', '--name', 'Bench shop', '--json'], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`payd merchant create failed: ${r.stderr}`);
  const m = JSON.parse(r.stdout);
  return {
    dir,
    configFile,
    dbFile: config.database.file,
    clientId: m.client_id,
    headers: { 'x-client-id': m.client_id, 'x-client-secret': m.client_secret },
    close: () => rmSync(dir, { recursive: true, force: true }),
  };
}

export interface PaydProcess {
  url: string;
  pid: number;
  /** Milliseconds from spawn to the "payd listening" log line. */
  startMs: number;
  logFile: string;
  rssMb(): number;
  stop(): Promise<number | null>;
}

const live = new Set<ChildProcess>();
process.on('exit', () => {
  for (const p of live) p.kill('SIGKILL');
});

/**
 * `payd serve` on `d`, stderr to `<dir>/payd.log` (or, `logToPipe`, to a pipe this process reads
 * and copies there, as journald or a supervisor reads it); resolves once it logs that it listens.
 */
export async function startServe(d: PaydDir, o: { execArgv?: string[]; name?: string; serveArgs?: string[]; env?: Record<string, string>; bin?: string; logToPipe?: boolean } = {}): Promise<PaydProcess> {
  const logFile = join(d.dir, `${o.name ?? 'payd'}.log`);
  const fd = openSync(logFile, 'w');
  const t0 = performance.now();
  // bin/payd itself (its #! line carries payd's node flags), unless extra node flags are asked for.
  const bin = o.bin ?? PAYD_BIN;
  const flags = o.execArgv ?? [];
  const [cmd, args] = flags.length ? [process.execPath, [...flags, ...(flags.some((f) => f.startsWith('--max-semi-space-size')) ? [] : ['--max-semi-space-size=2']), bin]] : [bin, []];
  const proc = spawn(cmd, [...args, '--config', d.configFile, 'serve', '--port', '0', ...(o.serveArgs ?? [])], { stdio: ['ignore', 'ignore', o.logToPipe ? 'pipe' : fd], env: o.env ? { ...process.env, ...o.env } : process.env });
  if (o.logToPipe) {
    proc.stderr!.on('data', (chunk: Buffer) => writeSync(fd, chunk));
    proc.on('exit', () => closeSync(fd));
  } else closeSync(fd);
  live.add(proc);
  const exited = new Promise<number | null>((r) => proc.on('exit', (code) => (live.delete(proc), r(code))));
  let url: string | undefined;
  const deadline = Date.now() + 60_000;
  while (!url) {
    if (proc.exitCode !== null) throw new Error(`payd serve exited with ${proc.exitCode}:\n${readFileSync(logFile, 'utf8')}`);
    if (Date.now() > deadline) throw new Error(`payd serve did not listen within 60 s:\n${readFileSync(logFile, 'utf8')}`);
    const m = /"url":"(http:[^"]+)"[^\n]*"msg":"payd listening"/.exec(readFileSync(logFile, 'utf8'));
    if (m) url = m[1];
    else await new Promise((r) => setTimeout(r, 2));
  }
  const startMs = performance.now() - t0;
  return {
    url,
    pid: proc.pid!,
    startMs,
    logFile,
    rssMb: () => rssMb(proc.pid!),
    async stop() {
      if (proc.exitCode !== null) return proc.exitCode;
      const timer = setTimeout(() => proc.kill('SIGKILL'), 15_000);
      proc.kill('SIGTERM');
      const code = await exited;
      clearTimeout(timer);
      return code;
    },
  };
}

/** The fields of /proc/<pid>/stat after the command name (utime is [11], stime [12], in 10 ms ticks). */
const statOf = (pid: number): string[] => readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');

/** CPU time (user + system, all threads) of a process so far, µs (Linux /proc; 10 ms ticks). */
export function cpuUsOf(pid: number): number {
  const f = statOf(pid);
  return (Number(f[11]) + Number(f[12])) * 10_000;
}

/** Its system (kernel) part alone, µs. */
export const sysUsOf = (pid: number): number => Number(statOf(pid)[12]) * 10_000;

/**
 * The machine's CPU time so far, in ticks (Linux /proc/stat): all of it, and what the hypervisor
 * gave to other guests while this one wanted to run (steal). A round's steal share tells a
 * slow round caused by the host from one caused by the process measured.
 */
export function machineTicks(): { total: number; steal: number } {
  const f = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0]!.trim().split(/\s+/).slice(1, 9).map(Number);
  return { total: f.reduce((a, b) => a + b, 0), steal: f[7]! };
}

/** Steal as a share of the machine's time between two readings of machineTicks(). */
export const stealShare = (a: ReturnType<typeof machineTicks>, b: ReturnType<typeof machineTicks>): number => (b.steal - a.steal) / Math.max(1, b.total - a.total);

/** Resident set size of a process, MB (Linux /proc). */
export function rssMb(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  if (!m) throw new Error(`no VmRSS for ${pid}`);
  return Number(m[1]) / 1024;
}

/**
 * Wall and CPU (user + system) time of `bin/payd <args>` as a process, as a user runs it
 * (through its #! line), ms; exit code must be 0. CPU time, read through GNU time, is the
 * figure that holds on a machine other processes keep busy.
 */
export function timeCli(args: string[], cwd?: string): { wallMs: number; cpuMs: number } {
  const t0 = performance.now();
  const r = spawnSync('/usr/bin/time', ['-f', 'payd-cpu %U %S', PAYD_BIN, ...args], { cwd, encoding: 'utf8' });
  const wallMs = performance.now() - t0;
  if (r.status !== 0) throw new Error(`payd ${args.join(' ')} exited ${r.status}: ${r.stderr}`);
  const m = /payd-cpu ([\d.]+) ([\d.]+)/.exec(r.stderr);
  if (!m) throw new Error(`no CPU time from /usr/bin/time: ${r.stderr}`);
  return { wallMs, cpuMs: (Number(m[1]) + Number(m[2])) * 1000 };
}
