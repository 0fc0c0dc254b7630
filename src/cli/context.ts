import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import type { App } from '../app/index.ts';
import type { Config, Env } from '../config/read.ts';
import { loadConfigFile, parseConfig } from '../methods/load-config.ts';
import { PaydError } from '../domain/errors.ts';
import type { LogLevel } from '../log/index.ts';
import type { Prompter } from './prompter.ts';
import type { Output } from './output.ts';

export interface GlobalOptions {
  config?: string;
  sandbox?: boolean;
}

export interface CliEnv {
  env: Env;
  cwd: string;
  io: Output;
  /** How payd asks its questions (default: @inquirer/prompts on the terminal). */
  prompter?: Prompter;
  /** True when stdin and stdout are a terminal: destructive commands then ask first. */
  interactive?: boolean;
  /** How this payd was invoked (e.g. `bin/payd`), for printed next steps. */
  self?: string;
}

/** --config, else $PAYD_CONFIG, else ./payd.config.json, else the embedded defaults. */
export function resolveConfig(options: GlobalOptions, env: CliEnv): { config: Config; file: string | null } {
  const named = options.config ?? env.env.PAYD_CONFIG;
  if (named) {
    const file = resolve(env.cwd, named);
    if (!existsSync(file)) throw new PaydError('CONFIG_INVALID', `config file ${file} does not exist (run \`payd init\` to create one)`);
    return { config: loadConfigFile(file, env.env), file };
  }
  const local = resolve(env.cwd, 'payd.config.json');
  if (existsSync(local)) return { config: loadConfigFile(local, env.env), file: local };
  return { config: parseConfig({}, env.cwd, env.env), file: null };
}

const modeName = (sandbox: boolean) => (sandbox ? 'sandbox' : 'live');
const modeFlag = (sandbox: boolean) => (sandbox ? 'drop --sandbox' : 'add --sandbox');

export interface WithAppOptions {
  level?: LogLevel;
  /** The command may create the database (merchant create, doctor); read/change commands may not. */
  creates?: boolean;
  /**
   * The command may begin a live database beside the demo's sandbox one (merchant create and doctor:
   * the live shop's first steps). Other creating commands refuse there: an operator who forgot --sandbox would
   * get an empty live database and, from then on, empty lists instead of the hint to add --sandbox.
   */
  beginsLive?: boolean;
  /** The id the command is about: a NOT_FOUND then says whether the other database has it. */
  id?: string;
  /** What to say when `id` is in the other database (default: add / drop --sandbox). */
  otherHint?: string;
}

/** Its key file (or WAL) outlives a SQLite database: present without it, the database existed there and was moved or deleted. */
export const databaseTraces = (dbFile: string): string[] => [`${dbFile}.key`, `${dbFile}-wal`].filter((f) => existsSync(f));

export const lostDatabase = (traces: string[]): string =>
  `the database is missing: ${traces.join(' and ')} ${traces.length > 1 ? 'are' : 'is'} still there, so it was created at this path and has since been moved or deleted.`;

/**
 * Opens the app (database migrated) for one command and always closes it. Unless the command
 * creates data, a missing database is an error naming the file looked for, never a new empty one.
 */
export async function withApp<T>(options: GlobalOptions, env: CliEnv, fn: (app: App) => Promise<T>, command: WithAppOptions = {}): Promise<T> {
  const { config, file: configFile } = resolveConfig(options, env);
  // The app and the logger are imported here, not at the top, so `payd --help` loads neither.
  const [{ createApp }, { databaseFile, storeTarget }, { createLogger }, { systemClock, systemRandom }] = await Promise.all([import('../app/index.ts'), import('../db/paths.ts'), import('../log/index.ts'), import('../system.ts')]);
  const sandbox = Boolean(options.sandbox);
  const dbFile = databaseFile(config, sandbox);
  const otherFile = databaseFile(config, !sandbox);
  // A PostgreSQL database is created by its operator; payd only migrates it.
  const onPostgres = storeTarget(config, sandbox).kind === 'postgres';
  if (!command.creates && !onPostgres && !existsSync(dbFile)) {
    const lines = [`no ${modeName(sandbox)} database at ${dbFile} (config: ${configFile ?? 'embedded defaults, no config file found'})`];
    const traces = databaseTraces(dbFile);
    if (traces.length) {
      lines.push(`  ${lostDatabase(traces)}`, `  Restore it from your backup (with its master key) before starting payd serve; or pass --config <file> if this is the wrong config.`);
      if (existsSync(otherFile)) lines.push(`  (the ${modeName(!sandbox)} database ${otherFile} is a separate database: ${modeFlag(sandbox)} only to look at that one)`);
    } else if (existsSync(otherFile)) lines.push(`  the ${modeName(!sandbox)} database ${otherFile} exists: ${modeFlag(sandbox)}`);
    else lines.push(`  nothing to show yet: create a merchant first (payd${sandbox ? ' --sandbox' : ''} merchant create --name …), or pass --config <file>`);
    throw new PaydError('NOT_FOUND', lines.join('\n'));
  }
  if (command.creates && !command.beginsLive && !sandbox && !onPostgres && !existsSync(dbFile) && existsSync(otherFile)) {
    throw new PaydError(
      'NOT_FOUND',
      [
        `no live database at ${dbFile}, and this command would create an empty one: only the sandbox database ${otherFile} exists (the demo's).`,
        `  add --sandbox to use the demo's database; to begin a live shop, create its first merchant: payd merchant create --name …`,
      ].join('\n'),
    );
  }
  const app = await createApp({ config, sandbox, clock: systemClock, random: systemRandom, log: createLogger({ level: command.level ?? 'warn' }) });
  try {
    return await fn(app);
  } catch (err) {
    if (err instanceof PaydError && (err.code === 'NOT_FOUND' || err.code === 'INTENT_NOT_FOUND') && command.id) {
      const [{ findRecordIn }, { describeTarget }] = await Promise.all([import('../db/probe.ts'), import('../db/store.ts')]);
      const other = storeTarget(config, !sandbox);
      const elsewhere = await findRecordIn(other, command.id);
      if (elsewhere) throw new PaydError(err.code, `${err.message}\n  ${elsewhere} ${command.id} exists in the ${modeName(!sandbox)} database (${describeTarget(other)}): ${command.otherHint ?? modeFlag(sandbox)}`);
    }
    throw err;
  } finally {
    await app.close();
  }
}

/** Asks before a destructive change on a terminal; scripts (no terminal) and --yes go ahead. */
export async function confirmed(env: CliEnv, yes: unknown, message: string): Promise<boolean> {
  if (yes || !env.interactive) return true;
  const { confirm } = env.prompter ?? (await import('@inquirer/prompts'));
  return confirm({ message, default: false });
}
