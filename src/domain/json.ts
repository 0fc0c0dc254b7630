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
  if (indent === undefined) return compact(value) ?? 'undefined';
  return JSON.stringify(value, replacer, indent).replace(MARKED, '$1');
}

/**
 * The compact form in one pass (API replies, webhook bodies): JSON.stringify with a replacer
 * takes V8's slow path and then needed a regex pass over the text; this writes each value
 * once. Same output as JSON.stringify for everything else (toJSON, undefined members, NaN).
 */
function compact(v: unknown): string | undefined {
  switch (typeof v) {
    case 'string':
      return JSON.stringify(v);
    case 'number':
      return Number.isFinite(v) ? JSON.stringify(v) : 'null';
    case 'boolean':
      return v ? 'true' : 'false';
    case 'object': {
      if (v === null) return 'null';
      if (v instanceof DecimalNumber) return v.text;
      const o = v as { toJSON?: () => unknown } & Record<string, unknown>;
      if (typeof o.toJSON === 'function') return compact(o.toJSON());
      if (Array.isArray(v)) {
        let out = '[';
        for (let i = 0; i < v.length; i++) out += (i ? ',' : '') + (compact(v[i]) ?? 'null');
        return out + ']';
      }
      let out = '{';
      let first = true;
      for (const k in o) {
        if (!Object.prototype.hasOwnProperty.call(o, k)) continue;
        const text = compact(o[k]);
        if (text === undefined) continue;
        out += (first ? '' : ',') + quotedKey(k) + text;
        first = false;
      }
      return out + '}';
    }
    case 'bigint':
      throw new TypeError('Do not know how to serialize a BigInt');
    default:
      return undefined; // undefined, functions, symbols: left out, as JSON.stringify does
  }
}

/**
 * `"key":` per member name. Replies repeat the same few names (they come from code), so the
 * quoted form is remembered instead of checked and built again for every member of every reply.
 */
const KEYS = new Map<string, string>();
function quotedKey(k: string): string {
  let q = KEYS.get(k);
  if (q === undefined) {
    q = JSON.stringify(k) + ':';
    if (KEYS.size < 1000) KEYS.set(k, q);
  }
  return q;
}
