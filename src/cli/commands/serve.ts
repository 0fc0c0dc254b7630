import { existsSync } from 'node:fs';
import { createServer } from 'node:net';
import { InvalidArgumentError, type Command } from 'commander';
import type { App } from '../../app/index.ts';
import { builtinMethods, startupWarnings } from '../../methods/registry.ts';
import { PaydError } from '../../domain/errors.ts';
import { databaseTraces, lostDatabase, resolveConfig, type CliEnv, type GlobalOptions } from '../context.ts';
import { leaf, type Opts } from './leaf.ts';

/** --port: a usage error (exit 2) unless 0-65535. */
export const portNumber = (v: string) => {
  const n = Number(v);
  if (!/^\d+$/.test(v) || n > 65535) throw new InvalidArgumentError('expected a port number 0-65535');
  return n;
};

const SHUTDOWN_MS = 10_000;

/**
 * The port to listen on: fails with a hint before anything is created when another process holds
 * it. Port 0 is resolved here to the free port the system picks, so the links the app builds from
 * the port (checkout URLs, the demo's banner) name the port it really listens on.
 */
async function claimablePort(host: string, port: number): Promise<number> {
  const probed = await new Promise<{ error: NodeJS.ErrnoException } | { port: number }>((resolve) => {
    const probe = createServer();
    probe.once('error', (error) => resolve({ error }));
    probe.listen({ host, port, exclusive: true }, () => {
      const bound = (probe.address() as { port: number }).port;
      probe.close(() => resolve({ port: bound }));
    });
  });
  if ('port' in probed) return probed.port;
  const { error } = probed;
  if (error.code === 'EADDRINUSE') throw new PaydError('CONFLICT', `port ${port} on ${host} is already in use (another payd, or payd demo?): stop it, or choose another port with --port ${port === 65535 ? 8081 : port + 1}`);
  if (error.code === 'EACCES') throw new PaydError('CONFLICT', `not allowed to listen on port ${port}: use a port above 1023 (behind a reverse proxy), e.g. --port 8080`);
  return port; // anything else is the listener's to report, as it would be without this probe
}

/**
 * Runs until SIGTERM/SIGINT, then shuts down within 10 s and resolves. `before` runs once the
 * app is built, `after` once it listens (the demo creates its merchant there).
 */
export async function runDaemon(
  options: GlobalOptions,
  env: CliEnv,
  o: { host?: string; port?: number; http: boolean; workers: boolean; console?: boolean },
  before?: (app: App) => Promise<void>,
  after?: (app: App) => Promise<void>,
): Promise<void> {
  const resolved = resolveConfig(options, env);
  const file = resolved.file;
  // Flags override the config, so checkout links point where the daemon really listens.
  const server = resolved.config.server;
  const config = {
    ...resolved.config,
    server: { ...server, host: o.host ?? server.host, port: o.port ?? server.port, console: o.console ? { ...server.console, enabled: true } : server.console },
  };
  const [{ createApp }, { createLogger }, { systemClock, systemRandom }, { storeTarget }] = await Promise.all([import('../../app/index.ts'), import('../../log/index.ts'), import('../../system.ts'), import('../../db/paths.ts')]);
  // A live shop's database gone missing (a volume not mounted, a file deleted) is never replaced by an empty one:
  // its intents, payments and merchants would vanish while payd carried on.
  const target = storeTarget(config, options.sandbox ?? false);
  if (!options.sandbox && target.kind === 'sqlite' && !existsSync(target.file)) {
    const traces = databaseTraces(target.file);
    if (traces.length) {
      throw new PaydError('NOT_FOUND', `no database at ${target.file}: ${lostDatabase(traces)}\n  payd serve does not begin an empty one in its place. Restore the database from your backup (docs/operations.md, Backups); or, to start over with no data, move ${traces.join(' and ')} away.`);
    }
  }
  const log = createLogger({ level: config.log.level });
  // Log lines are written asynchronously: a crash must not lose the ones still queued, nor its own.
  const fatal = (err: unknown) => {
    log.error('fatal error; exiting', { error: err instanceof Error ? err.stack : String(err) });
    log.flush();
    process.exit(1);
  };
  process.once('uncaughtException', fatal);
  if (!file) log.warn('no config file found; running on the embedded defaults (no payment method enabled outside the sandbox)');
  for (const warning of startupWarnings(config, builtinMethods)) log.warn(warning);
  if (o.http) config.server.port = await claimablePort(config.server.host, config.server.port);
  const app = await createApp({ config, sandbox: options.sandbox, clock: systemClock, random: systemRandom, log });
  try {
    await before?.(app);
    await app.start({ http: o.http, workers: o.workers });
    await after?.(app);
  } catch (err) {
    // Nothing half-started stays behind (no workers without the API, no lease held): exit 1.
    log.error('start failed; stopping', { error: err instanceof Error ? err.message : String(err) });
    await app.close().catch(() => {});
    throw err;
  }
  let stopAt = 0;
  await new Promise<void>((resolve) => {
    const stop = (signal: string) => {
      stopAt = Date.now();
      log.info('shutting down', { signal });
      // One deadline for HTTP, workers and deliveries together (app.close); missing it exits 1.
      app.close({ deadlineMs: SHUTDOWN_MS }).then(
        (clean) => {
          if (clean) return resolve();
          log.error(`shutdown took longer than ${SHUTDOWN_MS / 1000} s; exiting 1`);
          log.flush();
          process.exit(1);
        },
        (err) => {
          log.error('shutdown failed', { error: String(err) });
          log.flush();
          process.exit(1);
        },
      );
    };
    process.once('SIGTERM', () => stop('SIGTERM'));
    process.once('SIGINT', () => stop('SIGINT'));
  });
  log.info('stopped');
  log.flush();
  process.off('uncaughtException', fatal);
  // A slow reader of stdout/stderr gets what is left of the deadline to take the last lines; a gone one none.
  const rest = Math.max(0, stopAt + SHUTDOWN_MS - Date.now());
  if (!(await drainedWithin(env, rest))) process.exit(0);
}

const drainedWithin = (e: CliEnv, ms: number): Promise<boolean> =>
  new Promise((resolve) => {
    if (!e.io.flushed) return resolve(true);
    const timer = setTimeout(() => resolve(false), ms);
    void e.io.flushed().then(() => {
      clearTimeout(timer);
      resolve(true);
    });
  });

export function serveCommand(program: Command, env: CliEnv): void {
  leaf(program.command('serve').description('run the API, payment sources, webhook dispatcher and housekeeping'))
    .option('--host <host>', 'listen address (default from config)')
    .option('--port <port>', 'listen port (default from config)', portNumber)
    .option('--no-workers', 'API only: no sources, webhooks or housekeeping')
    .option('--workers-only', 'sources, webhooks and housekeeping without the API')
    .action(async (o: Opts, cmd: Command) => {
      if (o.workersOnly && o.workers === false) cmd.error('error: --no-workers and --workers-only exclude each other', { exitCode: 2 });
      await runDaemon(cmd.optsWithGlobals(), env, { host: o.host as string, port: o.port as number, http: !o.workersOnly, workers: o.workers !== false });
    });
}
