import { existsSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type { Command } from 'commander';
import { parseConfig } from '../../methods/load-config.ts';
import { PaydError } from '../../domain/errors.ts';
import type { CliEnv } from '../context.ts';
import { nextSteps } from '../init/next-steps.ts';
import { secretLines, withStandInSecrets } from '../init/secrets.ts';
import { ask, defaultAnswers } from '../init/wizard.ts';
import { createDatabase, writeConfigFile } from '../init/write.ts';
import type { Prompter } from '../prompter.ts';
import { SYSTEMD } from '../systemd-recipe.ts';
import { leaf, type Opts } from './leaf.ts';

// The command only maps options to the init steps: the wizard (init/wizard.ts), secret
// references (init/secrets.ts), writing the files (init/write.ts), the next steps (init/next-steps.ts).
export function initCommand(program: Command, env: CliEnv): void {
  leaf(program.command('init').description('write a config file (asks where each secret comes from) and create the database'))
    .option('--yes', 'use the defaults without asking')
    .option('--force', 'overwrite an existing config file')
    .option('--systemd', `profile for systemd/payd.service: secrets as its credentials, database in /var/lib/payd (default config ${SYSTEMD.config})`)
    .action(async (o: Opts, cmd: Command) => {
      const g = cmd.optsWithGlobals();
      const systemd = Boolean(o.systemd);
      const file = resolve(env.cwd, (g.config as string | undefined) ?? env.env.PAYD_CONFIG ?? (systemd ? SYSTEMD.config : 'payd.config.json'));
      if (existsSync(file) && !o.force) throw new PaydError('CONFLICT', `${file} already exists; use --force to overwrite it`);
      const asked = o.yes ? defaultAnswers(systemd) : await ask(env.prompter ?? ((await import('@inquirer/prompts')) as unknown as Prompter), systemd);
      // Validate before writing: a config that payd would refuse is never written.
      const config = parseConfig(withStandInSecrets(asked.json, asked.secrets), dirname(file), env.env);
      writeConfigFile(file, asked.json);
      env.io.out(`wrote ${file}`);
      let dbFile: string | null = null;
      // Under systemd the service creates the database as its own user (ExecStartPre: payd migrate).
      if (!systemd) {
        dbFile = await createDatabase(config);
        env.io.out(`created ${dbFile}`);
      }
      if (asked.secrets.length) {
        env.io.out('secrets payd reads (never stored in the config):');
        for (const line of secretLines(asked.secrets, file, SYSTEMD.credentialsDir)) env.io.out(line);
      }
      env.io.out(nextSteps(env, file, asked, systemd, dbFile).join('\n'));
    });
}
