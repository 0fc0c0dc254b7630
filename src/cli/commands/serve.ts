import type { Command } from 'commander';
import type { App } from '../../app.ts';
import { resolveConfig, type CliEnv, type GlobalOptions } from '../context.ts';
import { leaf, type Opts } from './leaf.ts';

const port = (v: string) => {
  const n = Number(v);
  if (!/^\d+$/.test(v) || n > 65535) throw new Error('expected a port number 0-65535');
  return n;
};

const SHUTDOWN_MS = 10_000;

/** Runs until SIGTERM/SIGINT, then shuts down within 10 s and resolves. */
export async function runDaemon(g: GlobalOptions, e: CliEnv, o: { host?: string; port?: number; http: boolean; workers: boolean }, before?: (app: App) => Promise<void>): Promise<void> {
  const resolved = resolveConfig(g, e);
  const file = resolved.file;
  // Flags override the config, so checkout links point where the daemon really listens.
  const config = { ...resolved.config, server: { ...resolved.config.server, host: o.host ?? resolved.config.server.host, port: o.port ?? resolved.config.server.port } };
  const [{ createApp }, { createLogger }, { systemClock, systemRandom }] = await Promise.all([import('../../app.ts'), import('../../log.ts'), import('../../system.ts')]);
  const log = createLogger({ level: config.log.level });
  // Log lines are written asynchronously: a crash must not lose the ones still queued, nor its own.
  const fatal = (err: unknown) => {
    log.error('fatal error; exiting', { error: err instanceof Error ? err.stack : String(err) });
    log.flush();
    process.exit(1);
  };
  process.once('uncaughtException', fatal);
  if (!file) log.warn('no config file found; running on the embedded defaults (no payment method enabled outside the sandbox)');
  if (config.methods.UPI && !config.methods.UPI.dkim.required) log.warn('methods.UPI.dkim.required is false: forged bank e-mails can settle intents');
  const app = await createApp({ config, sandbox: g.sandbox, clock: systemClock, random: systemRandom, log });
  try {
    await before?.(app);
    await app.start({ http: o.http, workers: o.workers });
  } catch (err) {
    // Nothing half-started stays behind (no workers without the API, no lease held): exit 1.
    log.error('start failed; stopping', { error: err instanceof Error ? err.message : String(err) });
    await app.close().catch(() => {});
    throw err;
  }
  await new Promise<void>((resolve) => {
    const stop = (signal: string) => {
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
}

export function serveCommand(program: Command, e: CliEnv): void {
  leaf(program.command('serve').description('run the API, payment sources, webhook dispatcher and housekeeping'))
    .option('--host <host>', 'listen address (default from config)')
    .option('--port <port>', 'listen port (default from config)', port)
    .option('--no-workers', 'API only: no sources, webhooks or housekeeping')
    .option('--workers-only', 'sources, webhooks and housekeeping without the API')
    .action(async (o: Opts, cmd: Command) => {
      if (o.workersOnly && o.workers === false) cmd.error('error: --no-workers and --workers-only exclude each other', { exitCode: 2 });
      await runDaemon(cmd.optsWithGlobals(), e, { host: o.host as string, port: o.port as number, http: !o.workersOnly, workers: o.workers !== false });
    });
}
