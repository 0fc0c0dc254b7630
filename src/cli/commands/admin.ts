import type { Command } from 'commander';
import { PaydError } from '../../domain/errors.ts';
import { withApp, resolveConfig, type CliEnv } from '../context.ts';
import { leaf, type Opts } from './leaf.ts';

export function adminCommands(program: Command, e: CliEnv): void {
  leaf(program.command('migrate').description('apply pending database migrations')).action(async (_o: Opts, cmd: Command) => {
    const g = cmd.optsWithGlobals();
    const { config } = resolveConfig(g, e);
    const [{ databaseFile }, { migrate, openDatabase }] = await Promise.all([import('../../app.ts'), import('../../db/open.ts')]);
    const file = databaseFile(config, Boolean(g.sandbox));
    const db = openDatabase(file);
    try {
      const applied = await migrate(db);
      e.io.out(applied.length ? `applied ${applied.join(', ')} to ${file}` : `${file} is up to date`);
    } finally {
      await db.destroy();
    }
  });

  leaf(program.command('doctor').description('check the config, the database and every enabled upstream')).action((_o: Opts, cmd: Command) =>
    withApp(cmd.optsWithGlobals(), e, async (app) => {
      let failed = false;
      const line = (ok: boolean, what: string, msg: string) => {
        if (!ok) failed = true;
        e.io.out(`${ok ? 'ok  ' : 'FAIL'}  ${what}: ${msg}`);
      };
      line(true, 'config', 'valid');
      line(true, 'database', `${app.dbFile} (migrated)`);
      const methods = Object.keys(app.config.amounts);
      if (!app.livemode) line(true, 'mode', 'sandbox');
      else if (methods.length === 0) line(true, 'methods', 'none enabled (add a section under "methods")');
      for (const source of await app.sources()) {
        const signal = AbortSignal.timeout(15_000);
        try {
          const r = await source.check(signal);
          line(r.ok, source.name, r.message);
        } catch (err) {
          line(false, source.name, (err as Error).message);
        }
      }
      if (failed) throw new PaydError('UPSTREAM', 'some checks failed');
    }),
  );
}
