import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { dirname } from 'node:path';

/** One measured figure. `value` is a number where it can be, so the JSON stays machine-readable. */
export interface Row {
  metric: string;
  value: number | string | boolean;
  unit?: string;
  note?: string;
}

export interface SectionResult {
  title: string;
  rows: Row[];
  /** Free-form lines printed under the table (setup, caveats). */
  notes?: string[];
}

export interface BenchContext {
  /** Progress lines go to stderr so stdout holds only the report. */
  progress(msg: string): void;
  /** Write a V8 CPU profile of the payd server process(es) to this directory, if set. */
  profileDir: string | null;
}

/** A section measures one area and returns its rows; it must close everything it started. */
export type Section = (ctx: BenchContext) => Promise<SectionResult>;

const fmt = (v: Row['value']): string => {
  if (typeof v === 'number') return Number.isInteger(v) ? String(v) : v >= 100 ? v.toFixed(0) : v >= 10 ? v.toFixed(1) : v.toFixed(2);
  if (typeof v === 'boolean') return v ? 'yes' : 'NO';
  return v;
};

export function formatSection(name: string, s: SectionResult): string {
  const lines = [`== ${name}: ${s.title}`];
  const width = Math.max(...s.rows.map((r) => r.metric.length));
  for (const r of s.rows) {
    const value = `${fmt(r.value)}${r.unit ? ` ${r.unit}` : ''}`;
    lines.push(`  ${r.metric.padEnd(width)}  ${value.padStart(12)}${r.note ? `   ${r.note}` : ''}`);
  }
  for (const n of s.notes ?? []) lines.push(`  - ${n}`);
  return lines.join('\n');
}

export function formatReport(results: Record<string, SectionResult>, meta: Record<string, unknown>): string {
  const head = `payd bench  ${meta.startedAt}  node ${process.version}  ${cpus().length} cpu(s)  (figures are from one run; compare ratios, not absolutes)`;
  return [head, ...Object.entries(results).map(([name, s]) => formatSection(name, s))].join('\n\n');
}

export function writeJson(file: string, results: Record<string, SectionResult>, meta: Record<string, unknown>): void {
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, JSON.stringify({ ...meta, node: process.version, cpus: cpus().length, sections: results }, null, 2) + '\n');
}

/** Percentile of an unsorted sample (nearest rank). */
export function percentile(sample: number[], p: number): number {
  if (sample.length === 0) return NaN;
  const sorted = [...sample].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}

export const round = (n: number, digits = 2): number => Math.round(n * 10 ** digits) / 10 ** digits;
