import { randomBytes } from 'node:crypto';

/**
 * JSON whose amounts are numbers written in plain decimal (0.000001, never 1e-6).
 * A `DecimalNumber` is emitted as its text, unquoted.
 */
export class DecimalNumber {
  constructor(readonly text: string) {
    if (!/^-?\d+(\.\d+)?$/.test(text)) throw new RangeError(`not a plain decimal: ${text}`);
  }
}

// A per-process marker no input can contain (it starts with NUL and is unguessable): each
// DecimalNumber is written as a marked string, then the quotes and marker are removed.
const MARK = `\u0000${randomBytes(12).toString('hex')}:`;
const MARKED = new RegExp(`"\\\\u0000${MARK.slice(1)}(-?\\d+(?:\\.\\d+)?)"`, 'g');

function replacer(this: unknown, _key: string, value: unknown): unknown {
  return value instanceof DecimalNumber ? MARK + value.text : value;
}

export function stringifyJson(value: unknown, indent?: number): string {
  return JSON.stringify(value, replacer, indent).replace(MARKED, '$1');
}
