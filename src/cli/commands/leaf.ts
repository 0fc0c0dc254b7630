import { InvalidArgumentError, type Command } from 'commander';

export type Opts = Record<string, unknown>;

/** Every command accepts the global options after its name too (`payd intents list --config x`). */
export function leaf(cmd: Command): Command {
  return cmd.option('--config <file>', 'config file').option('--sandbox', 'use the sandbox database and merchants');
}

export function positiveInt(value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(n) || n < 1) throw new InvalidArgumentError('expected a positive whole number');
  return n;
}
