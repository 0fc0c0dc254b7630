import { CommanderError } from 'commander';
import { PaydError, type ErrorCode } from '../domain/errors.ts';
import type { CliEnv } from './context.ts';
import { buildProgram } from './program.ts';

/** The one code → exit code table: 2 for bad input, 1 for everything else that failed. */
const EXIT: Partial<Record<ErrorCode, number>> = {
  INVALID_REQUEST: 2,
  CONFIG_INVALID: 2,
  METHOD_UNSUPPORTED: 2,
  AMOUNT_OUT_OF_RANGE: 2,
};

export async function runCli(argv: string[], env: CliEnv): Promise<number> {
  const program = buildProgram(env);
  program.exitOverride();
  for (const cmd of program.commands) {
    cmd.exitOverride();
    for (const sub of cmd.commands) sub.exitOverride();
  }
  try {
    await program.parseAsync(argv, { from: 'user' });
    return 0;
  } catch (err) {
    if (err instanceof CommanderError) {
      if (err.code === 'commander.helpDisplayed' || err.code === 'commander.version' || err.code === 'commander.help') return 0;
      if (err.code === 'commander.executeSubCommandAsync') return 0;
      // A group without a subcommand prints its help and is a usage error.
      return err.exitCode === 0 ? 0 : 2;
    }
    if (err instanceof PaydError) {
      env.io.err(`error: ${err.message}`);
      return EXIT[err.code] ?? 1;
    }
    env.io.err(`error: ${err instanceof Error ? err.message : String(err)}`);
    return 1;
  }
}
