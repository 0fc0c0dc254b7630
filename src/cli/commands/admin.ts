import type { Command } from 'commander';
import { PaydError } from '../../domain/errors.ts';
import { withApp, resolveConfig, type CliEnv } from '../context.ts';
import { leaf, type Opts } from './leaf.ts';

export function adminCommands(program: Command, env: CliEnv): void {
  leaf(program.command('migrate').description('apply pending database migrations')).action(async (_o: Opts, cmd: Command) => {
    const g = cmd.optsWithGlobals();
    const { config } = resolveConfig(g, env);
    const [{ storeTarget }, { migrate }, { describeTarget, openDb }] = await Promise.all([import('../../db/paths.ts'), import('../../db/open.ts'), import('../../db/store.ts')]);
    const target = storeTarget(config, Boolean(g.sandbox));
    const where = describeTarget(target);
    const db = openDb(target);
    try {
      const applied = await migrate(db);
      env.io.out(applied.length ? `applied ${applied.join(', ')} to ${where}` : `${where} is up to date`);
    } finally {
      await db.destroy();
    }
  });

  leaf(program.command('rates').description("fiat pricing: each configured pair's rate in use, its age and source, and every source's state"))
    .option('--refresh', 'ask every source once now and record the answers (as the worker leader does)')
    .action((o: Opts, cmd: Command) =>
      withApp(cmd.optsWithGlobals(), env, async (app) => {
        const [{ describePair, describeSources }] = await Promise.all([import('../../pricing/describe.ts')]);
        const outcomes = o.refresh && app.pricing.refresher ? await app.pricing.refresher.refreshOnce(AbortSignal.timeout(30_000)) : [];
        const pairs = await app.pricing.book.status();
        if (pairs.length === 0) env.io.out('no pairs configured (pricing.pairs): only UPI priced in INR and USDT priced in USD (pricing.usdtPeg) can be quoted');
        for (const p of pairs) {
          env.io.out(`${p.pair}: ${describePair(p).message}`);
          for (const line of describeSources(p)) env.io.out(line);
        }
        // A refresh that reached no source at all is a failure a script must see (exit 1), not a table of errors.
        if (outcomes.length > 0 && outcomes.every((x) => 'error' in x)) throw new PaydError('UPSTREAM', 'every rate source failed (see above): no rate was refreshed');
      }),
    );

  leaf(program.command('doctor').description('check the config, the database and every enabled upstream')).action((_o: Opts, cmd: Command) =>
    withApp(cmd.optsWithGlobals(), env, async (app) => {
      const lines = await app.doctor.run();
      for (const l of lines) env.io.out(`${l.ok ? 'ok  ' : 'FAIL'}  ${l.what}: ${l.message}`);
      if (lines.some((l) => !l.ok)) throw new PaydError('UPSTREAM', 'some checks failed');
    }, { creates: true, beginsLive: true }),
  );
}
