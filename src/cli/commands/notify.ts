import type { Command } from 'commander';
import { PaydError } from '../../domain/errors.ts';
import { withApp, type CliEnv } from '../context.ts';
import { leaf, type Opts } from './leaf.ts';

export function notifyCommands(program: Command, env: CliEnv): void {
  const n = program.command('notify').description('the shopkeeper\'s notifications (Telegram, e-mail)');

  leaf(n.command('test').description('send one test message through every configured notification channel and say what happened to each; exit 1 if any failed')).action((_o: Opts, cmd: Command) =>
    withApp(
      cmd.optsWithGlobals(),
      env,
      async (app) => {
        const lines = await app.notificationCheck.test();
        if (lines.length === 0) throw new PaydError('CONFIG_INVALID', 'no notification channel is configured: add notifications.telegram or notifications.email to the config (docs/notifications.md)');
        for (const l of lines) env.io.out(`${l.ok ? 'ok  ' : 'FAIL'}  ${l.what}: ${l.message}`);
        if (lines.some((l) => !l.ok)) throw new PaydError('UPSTREAM', 'some notification channels did not take the test message (see above)');
      },
      { creates: true, beginsLive: true },
    ),
  );
}
