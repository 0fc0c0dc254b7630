import { InvalidArgumentError, type Command } from 'commander';

export type Opts = Record<string, unknown>;

/** Every command accepts the global options after its name too (`payd intents list --config x`). */
export function leaf(cmd: Command): Command {
  return cmd.option('--config <file>', 'config file').option('--sandbox', 'use the sandbox database and merchants');
}

const UNIT_SECONDS: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86400 };

/** "0", "90s", "10m", "24h", "7d" → seconds (at most 30 days). */
export function duration(value: string): number {
  const m = /^(\d+)([smhd])?$/.exec(value.trim());
  const seconds = m ? Number(m[1]) * UNIT_SECONDS[m[2] ?? 's'] : NaN;
  if (!Number.isSafeInteger(seconds) || seconds > 30 * 86400) throw new InvalidArgumentError('expected a duration like 0, 90s, 10m, 24h or 7d (at most 30d)');
  return seconds;
}

/** Seconds → the largest whole unit: 600 → "10m", 86400 → "24h". */
export function formatDuration(seconds: number): string {
  if (seconds > 0 && seconds % 3600 === 0) return `${seconds / 3600}h`;
  if (seconds > 0 && seconds % 60 === 0) return `${seconds / 60}m`;
  return `${seconds}s`;
}

export function positiveInt(value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(n) || n < 1) throw new InvalidArgumentError('expected a positive whole number');
  return n;
}
