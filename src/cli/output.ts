import { stringifyJson } from '../domain/json.ts';
import { stderr, stdout } from '../stdio.ts';

export interface Output {
  out(text: string): void;
  err(text: string): void;
  /** Resolves once everything printed reached its reader: true, or false when stdout lost some. */
  flushed?(): Promise<boolean>;
}

const withNewline = (t: string) => (t.endsWith('\n') ? t : t + '\n');

/** The process's stdout and stderr: a broken pipe drops output instead of throwing (src/stdio.ts). */
export const stdio: Output & { flushed(): Promise<boolean> } = {
  out: (t) => stdout().write(withNewline(t)),
  err: (t) => stderr().write(withNewline(t)),
  // stderr's losses (a log reader gone) do not make a command fail; stdout's do.
  flushed: async () => (await Promise.all([stdout().flushed(), stderr().flushed()]))[0],
};

export const printJson = (output: Output, value: unknown) => output.out(stringifyJson(value, 2));

const cell = (v: unknown): string => (v === null || v === undefined ? '-' : typeof v === 'object' ? stringifyJson(v) : String(v));

/** A plain aligned table: good in a terminal, greppable in a script. */
export function printTable(options: Output, rows: object[], columns: string[]): void {
  if (rows.length === 0) {
    options.out('(none)');
    return;
  }
  const cells = rows.map((r) => columns.map((c) => cell((r as Record<string, unknown>)[c])));
  const widths = columns.map((c, i) => Math.max(c.length, ...cells.map((row) => row[i].length)));
  const line = (vals: string[]) => vals.map((v, i) => v.padEnd(widths[i])).join('  ').trimEnd();
  options.out([line(columns.map((c) => c.toUpperCase())), ...cells.map(line)].join('\n'));
}

/** key: value lines for one record. */
export function printRecord(options: Output, record: object): void {
  const width = Math.max(...Object.keys(record).map((k) => k.length));
  options.out(
    Object.entries(record)
      .filter(([, v]) => v !== undefined)
      .map(([k, v]) => `${k.padEnd(width)}  ${cell(v)}`)
      .join('\n'),
  );
}
