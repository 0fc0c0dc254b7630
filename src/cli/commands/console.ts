import type { Command } from 'commander';
import { withApp, type CliEnv } from '../context.ts';
import { printJson, printTable } from '../output.ts';
import { leaf, type Opts } from './leaf.ts';

export function consoleCommands(program: Command, env: CliEnv): void {
  const c = program.command('console').description('the operator console under /console: invite a device, list and revoke sessions');

  leaf(c.command('invite').description('print a single-use link (15 minutes) that registers a passkey on the device that opens it'))
    .requiredOption('--name <name>', 'what to call the device in sessions and the audit log, e.g. "Asha\'s phone"')
    .option('--json', 'print JSON')
    .action((o: Opts, cmd: Command) =>
      withApp(cmd.optsWithGlobals(), env, async (app) => {
        const invite = await app.consoleAccess.invite(String(o.name));
        const url = `${app.consoleOrigin()}/console/invite/${invite.token}`;
        const expires_at = new Date(invite.expiresAt).toISOString();
        if (o.json) return printJson(env.io, { url, expires_at });
        env.io.out(url);
        env.io.err(`Open it on the device within 15 minutes (until ${expires_at}); it works once.`);
        if (!app.config.server.console.enabled) {
          env.io.err(cmd.optsWithGlobals().sandbox ? 'payd demo serves the console; for payd --sandbox serve, set server.console.enabled to true.' : 'The console is off: set server.console.enabled to true and restart payd serve.');
        }
      }, { creates: true }),
    );

  leaf(c.command('sessions').description('console sessions, newest first, with the passkey each signed in with'))
    .option('--json', 'print JSON')
    .action((o: Opts, cmd: Command) =>
      withApp(cmd.optsWithGlobals(), env, async (app) => {
        const rows = await app.consoleAccess.sessions();
        if (o.json) return printJson(env.io, rows);
        printTable(env.io, rows, ['session_id', 'passkey', 'state', 'signed_in_at', 'last_seen_at', 'address']);
      }),
    );

  leaf(c.command('revoke <session_id>').description('end a console session now; with --passkey also revoke its passkey (a lost phone)'))
    .option('--passkey', 'also revoke the passkey it signed in with: every session of it ends and it cannot sign in again')
    .action((id: string, o: Opts, cmd: Command) =>
      withApp(cmd.optsWithGlobals(), env, async (app) => {
        const r = await app.consoleAccess.revoke(id, { passkey: Boolean(o.passkey) });
        env.io.out(`revoked session ${r.session_id}${r.passkey === null ? '' : ` and the passkey "${r.passkey}"`}`);
      }, { id }),
    );
}
