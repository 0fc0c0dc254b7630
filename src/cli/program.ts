import { existsSync, readFileSync } from 'node:fs';
import { Command } from 'commander';
import { builtinMethods } from '../methods/registry.ts';
import type { CliEnv } from './context.ts';
import { adminCommands } from './commands/admin.ts';
import { backupCommand } from './commands/backup.ts';
import { consoleCommands } from './commands/console.ts';
import { dbCommands } from './commands/db.ts';
import { initCommand } from './commands/init.ts';
import { intentCommands } from './commands/intents.ts';
import { mailboxCommands } from './commands/mailbox.ts';
import { merchantCommands } from './commands/merchant.ts';
import { linkCommands } from './commands/links.ts';
import { paymentCommands } from './commands/payments.ts';
import { demoCommand, sandboxCommands } from './commands/sandbox.ts';
import { notifyCommands } from './commands/notify.ts';
import { serveCommand } from './commands/serve.ts';
import { webhookCommands } from './commands/webhooks.ts';

/** The version in package.json, read when asked (nothing is read at import time): one level up from the build in dist/, two from src/cli/. */
const version = (): string => {
  const here = existsSync(new URL('../package.json', import.meta.url)) ? '../package.json' : '../../package.json';
  return (JSON.parse(readFileSync(new URL(here, import.meta.url), 'utf8')) as { version: string }).version;
};

export function buildProgram(env: CliEnv): Command {
  const program = new Command('payd')
    .description(`self-hosted payment-intent daemon: ${builtinMethods.list.map((m) => m.checkout.label).join(', ')}`)
    .version(`payd ${version()}`, '-V, --version', 'print the version')
    .option('--config <file>', 'config file (else $PAYD_CONFIG, else ./payd.config.json)')
    .option('--sandbox', 'use the sandbox database and merchants')
    .showHelpAfterError()
    .configureOutput({ writeOut: (s) => env.io.out(s), writeErr: (s) => env.io.err(s) });
  initCommand(program, env);
  adminCommands(program, env);
  dbCommands(program, env);
  backupCommand(program, env);
  serveCommand(program, env);
  mailboxCommands(program, env);
  merchantCommands(program, env);
  linkCommands(program, env);
  intentCommands(program, env);
  paymentCommands(program, env);
  webhookCommands(program, env);
  consoleCommands(program, env);
  notifyCommands(program, env);
  sandboxCommands(program, env);
  demoCommand(program, env);
  return program;
}
