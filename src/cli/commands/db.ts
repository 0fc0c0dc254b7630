import type { Command } from 'commander';
import { PaydError } from '../../domain/errors.ts';
import { resolveConfig, type CliEnv } from '../context.ts';
import { printJson, printTable } from '../output.ts';
import { leaf, positiveInt, type Opts } from './leaf.ts';

/** Where the target URL comes from when no option names it. */
export const COPY_TO_ENV = 'PAYD_DB_COPY_TO';

export function dbCommands(program: Command, env: CliEnv): void {
  const db = program.command('db').description('move the database to another store');

  leaf(db.command('copy').description('copy the SQLite database into an empty PostgreSQL database (one transaction; row counts verified)'))
    .option('--to <url>', `target postgres:// URL (visible in ps and shell history: prefer --to-env or $${COPY_TO_ENV})`)
    .option('--to-env <name>', 'read the target URL from this environment variable')
    .option('--from <file>', 'the SQLite file to copy (default: the config\'s database.file)')
    .option('--batch <rows>', 'rows per read and per insert', positiveInt, 250)
    .option('--json', 'print JSON')
    .addHelpText('after', `\nThe target URL: --to, else the variable named by --to-env, else $${COPY_TO_ENV}.\nStop every payd serve first (a trial while the shop runs: copy a snapshot, --from <file> made with sqlite3's VACUUM INTO). The target must be empty; it is migrated, then filled in one transaction.`)
    .action(async (o: Opts, cmd: Command) => {
      const g = cmd.optsWithGlobals();
      if (g.sandbox) throw new PaydError('INVALID_REQUEST', 'the sandbox stays on SQLite: db copy moves the live database only (drop --sandbox)');
      const url = targetUrl(o, env);
      const { config } = resolveConfig(g, env);
      const [{ copyShop }, { systemClock }] = await Promise.all([import('../../services/db-copy.ts'), import('../../system.ts')]);
      const report = await copyShop({ config, from: o.from as string | undefined, cwd: env.cwd, to: url, batchRows: o.batch as number, clock: systemClock, progress: o.json ? undefined : (table, rows) => env.io.err(`copied ${table}: ${rows}`) });
      if (o.json) return printJson(env.io, report);
      printTable(env.io, report.tables, ['table', 'rows']);
      env.io.out(`\ncopied ${report.source} into ${report.target}: ${report.tables.reduce((a, t) => a + t.rows, 0)} rows in ${report.tables.length} tables, counts verified`);
      for (const s of report.skipped) env.io.out(`not copied: ${s.table} (${s.why})`);
      if (report.masterKeyFingerprint) env.io.out(`master key fingerprint ${report.masterKeyFingerprint}: every node on the new database needs this same key (server.masterKey)`);
    });
}

function targetUrl(o: Opts, e: CliEnv): string {
  let url: string | undefined;
  if (o.to !== undefined) url = String(o.to);
  else if (o.toEnv !== undefined) {
    url = e.env[String(o.toEnv)];
    if (!url) throw new PaydError('INVALID_REQUEST', `--to-env ${String(o.toEnv)}: that environment variable is not set`);
  } else {
    url = e.env[COPY_TO_ENV];
    if (!url) throw new PaydError('INVALID_REQUEST', `no target: pass --to <postgres-url>, --to-env <NAME>, or set ${COPY_TO_ENV}`);
  }
  if (!/^postgres(ql)?:\/\//.test(url)) throw new PaydError('INVALID_REQUEST', 'the target must be a postgres:// (or postgresql://) URL');
  return url;
}
