import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import type { App } from '../app.ts';
import { loadConfigFile, parseConfig, type Config, type Env } from '../config/load.ts';
import { PaydError } from '../domain/errors.ts';
import type { LogLevel } from '../log.ts';
import type { Prompter } from './commands/init.ts';
import type { Output } from './output.ts';

export interface GlobalOptions {
  config?: string;
  sandbox?: boolean;
}

export interface CliEnv {
  env: Env;
  cwd: string;
  io: Output;
  /** How `payd init` asks its questions (default: @inquirer/prompts on the terminal). */
  prompter?: Prompter;
}

/** --config, else $PAYD_CONFIG, else ./payd.config.json, else the embedded defaults. */
export function resolveConfig(g: GlobalOptions, e: CliEnv): { config: Config; file: string | null } {
  const named = g.config ?? e.env.PAYD_CONFIG;
  if (named) {
    const file = resolve(e.cwd, named);
    if (!existsSync(file)) throw new PaydError('CONFIG_INVALID', `config file ${file} does not exist (run \`payd init\` to create one)`);
    return { config: loadConfigFile(file, e.env), file };
  }
  const local = resolve(e.cwd, 'payd.config.json');
  if (existsSync(local)) return { config: loadConfigFile(local, e.env), file: local };
  return { config: parseConfig({}, e.cwd, e.env), file: null };
}

/**
 * Opens the app (database migrated) for one command and always closes it. The app and the
 * logger are imported here, not at the top, so `payd --help` loads neither.
 */
export async function withApp<T>(g: GlobalOptions, e: CliEnv, fn: (app: App) => Promise<T>, level: LogLevel = 'warn'): Promise<T> {
  const { config } = resolveConfig(g, e);
  const [{ createApp }, { createLogger }, { systemClock, systemRandom }] = await Promise.all([import('../app.ts'), import('../log.ts'), import('../system.ts')]);
  const app = await createApp({ config, sandbox: g.sandbox, clock: systemClock, random: systemRandom, log: createLogger({ level }) });
  try {
    return await fn(app);
  } finally {
    await app.close();
  }
}
