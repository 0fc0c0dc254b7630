import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Command } from 'commander';
import { PaydError } from '../../domain/errors.ts';
import { resolveConfig, type CliEnv } from '../context.ts';
import { printJson } from '../output.ts';
import { leaf, type Opts } from './leaf.ts';

export function backupCommand(program: Command, env: CliEnv): void {
  leaf(program.command('backup').description('a consistent, verified snapshot of the SQLite database (0600, in a 0700 directory), with a note of the master key it needs'))
    .option('--to <dir>', 'where to write it (created 0700 when missing; default: backups/ beside the database)')
    .option('--json', 'print JSON')
    .addHelpText('after', '\nSafe while payd runs. The master key is not copied: the note beside the backup says which key it needs and where it is kept.')
    .action(async (o: Opts, cmd: Command) => {
      const g = cmd.optsWithGlobals();
      const { config, file: configFile } = resolveConfig(g, env);
      const sandbox = Boolean(g.sandbox);
      const [{ databaseFile }, { backupDatabase }, { systemClock }] = await Promise.all([import('../../db/paths.ts'), import('../../services/backup.ts'), import('../../system.ts')]);
      // Not storeTarget(): that reads the URL, a secret the backup unit does not load (the sandbox stays on SQLite).
      if (config.database.url !== undefined && !sandbox) {
        throw new PaydError('CONFLICT', 'this shop keeps its data in PostgreSQL: back it up with PostgreSQL\'s own tools (pg_dump -Fc, or your provider\'s snapshots); payd backup copies SQLite databases only. Nothing was written');
      }
      const dbFile = databaseFile(config, sandbox);
      const report = backupDatabase({ dbFile, dir: o.to ? String(o.to) : join(dirname(dbFile), 'backups'), masterKeyAt: masterKeyAt(configFile, dbFile), clock: systemClock });
      if (o.json) return printJson(env.io, report);
      env.io.out(`backup ${report.file} (${report.bytes} bytes), verified: integrity ok, ${report.rows.intents ?? 0} intents, ${report.rows.payments ?? 0} payments, ${report.rows.merchants ?? 0} merchants`);
      env.io.out(
        report.master_key.fingerprint
          ? `needs the master key with fingerprint ${report.master_key.fingerprint} (${report.master_key.kept_at}); the key is not in the backup: keep a copy of it apart`
          : `no master key used yet (it will be ${report.master_key.kept_at})`,
      );
      env.io.out(`note: ${report.note}`);
    });
}

/** Where the master key is kept, as the config says, in words: never the key itself. */
function masterKeyAt(configFile: string | null, dbFile: string): string {
  let ref: unknown;
  if (configFile) {
    try {
      ref = (JSON.parse(readFileSync(configFile, 'utf8')) as { server?: { masterKey?: unknown } }).server?.masterKey;
    } catch {
      ref = undefined; // the config was read and validated already; this cannot fail in practice
    }
  }
  if (ref === undefined) return `the key file ${dbFile}.key (no server.masterKey in the config)`;
  if (typeof ref === 'string') return `written in the config itself (server.masterKey in ${configFile}): keep that file as secret as the key`;
  const r = ref as { file?: string; env?: string };
  if (r.file?.includes('$CREDENTIALS_DIRECTORY')) {
    const name = r.file.replace(/^.*\$CREDENTIALS_DIRECTORY\/?/, '');
    return `the systemd credential ${name} (server.masterKey ${r.file} in ${configFile}; the shipped unit loads it from /etc/payd/credentials/${name})`;
  }
  if (r.file) return `the file ${r.file} (server.masterKey in ${configFile})`;
  return `the environment variable ${r.env} (server.masterKey in ${configFile})`;
}
