/**
 * JSON whose amounts are numbers written in plain decimal (0.000001, never 1e-6).
 * A `DecimalNumber` is emitted as its text, unquoted.
 */
export class DecimalNumber {
  constructor(readonly text: string) {
    if (!/^-?\d+(\.\d+)?$/.test(text)) throw new RangeError(`not a plain decimal: ${text}`);
  }
  toJSON(): number {
    return Number(this.text);
  }
}

export function stringifyJson(value: unknown, indent = 0): string {
  return write(value, indent, '');
}

function write(value: unknown, indent: number, pad: string): string {
  if (value instanceof DecimalNumber) return value.text;
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (value instanceof Date) return JSON.stringify(value.toISOString());
  const inner = indent ? pad + ' '.repeat(indent) : '';
  const nl = indent ? '\n' : '';
  const sep = indent ? ': ' : ':';
  if (Array.isArray(value)) {
    if (value.length === 0) return '[]';
    const items = value.map((v) => inner + write(v, indent, inner));
    return `[${nl}${items.join(',' + nl)}${nl}${pad}]`;
  }
  const entries = Object.entries(value).filter(([, v]) => v !== undefined && typeof v !== 'function');
  if (entries.length === 0) return '{}';
  const items = entries.map(([k, v]) => `${inner}${JSON.stringify(k)}${sep}${write(v, indent, inner)}`);
  return `{${nl}${items.join(',' + nl)}${nl}${pad}}`;
}
