/**
 * A strict reader of the Prometheus text exposition format 0.0.4
 * (https://prometheus.io/docs/instrumenting/exposition_formats/): every line must be a
 * HELP, TYPE, comment or sample line; a family's TYPE comes before its samples, once; a
 * family's samples are contiguous; histograms have cumulative `le` buckets ending in
 * +Inf equal to `_count`. Throws naming the line on any deviation.
 */
export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}
export interface Family {
  type: string;
  help?: string;
  samples: Sample[];
}

const NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL = /^[a-zA-Z_][a-zA-Z0-9_]*$/;
const TYPES = new Set(['counter', 'gauge', 'histogram', 'summary', 'untyped']);

function parseValue(s: string, line: string): number {
  // Prometheus reads values with Go's strconv.ParseFloat: Inf and NaN in any letter case (prom-client writes "Nan").
  if (/^\+?inf$/i.test(s)) return Infinity;
  if (/^-inf$/i.test(s)) return -Infinity;
  if (/^nan$/i.test(s)) return NaN;
  if (!/^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(s)) throw new Error(`bad value ${JSON.stringify(s)} in: ${line}`);
  return Number(s);
}

function parseLabels(body: string, line: string): Record<string, string> {
  const labels: Record<string, string> = {};
  let i = 0;
  while (i < body.length) {
    const eq = body.indexOf('=', i);
    if (eq < 0) throw new Error(`bad labels in: ${line}`);
    const name = body.slice(i, eq);
    if (!LABEL.test(name) || name in labels) throw new Error(`bad or repeated label name ${JSON.stringify(name)} in: ${line}`);
    if (body[eq + 1] !== '"') throw new Error(`unquoted label value in: ${line}`);
    let j = eq + 2;
    let value = '';
    for (;;) {
      const c = body[j];
      if (c === undefined) throw new Error(`unterminated label value in: ${line}`);
      if (c === '"') break;
      if (c === '\\') {
        const n = body[j + 1];
        if (n === '\\' || n === '"') value += n;
        else if (n === 'n') value += '\n';
        else throw new Error(`bad escape in: ${line}`);
        j += 2;
        continue;
      }
      value += c;
      j += 1;
    }
    labels[name] = value;
    i = j + 1;
    if (body[i] === ',') i += 1;
    else if (i !== body.length) throw new Error(`bad label separator in: ${line}`);
  }
  return labels;
}

const familyOf = (name: string, families: Map<string, Family>): string => {
  for (const suffix of ['_bucket', '_sum', '_count', '']) {
    if (!name.endsWith(suffix)) continue;
    const base = name.slice(0, name.length - suffix.length);
    const f = families.get(base);
    if (f && (suffix === '' || f.type === 'histogram' || f.type === 'summary')) return base;
  }
  throw new Error(`sample ${name} has no TYPE line before it`);
};

export function parsePrometheusText(text: string): Map<string, Family> {
  if (!text.endsWith('\n')) throw new Error('exposition must end with a newline');
  const families = new Map<string, Family>();
  const closed = new Set<string>();
  let current: string | null = null;
  for (const line of text.slice(0, -1).split('\n')) {
    if (line === '') continue;
    if (line.startsWith('#')) {
      const m = /^# (HELP|TYPE) (\S+) ?(.*)$/.exec(line);
      if (!m) continue; // a plain comment
      const [, kind, name, rest] = m as unknown as [string, string, string, string];
      if (!NAME.test(name)) throw new Error(`bad metric name in: ${line}`);
      if (kind === 'TYPE') {
        if (!TYPES.has(rest)) throw new Error(`bad type in: ${line}`);
        const f = families.get(name);
        if (f?.type) throw new Error(`second TYPE for ${name}`);
        if (f?.samples.length) throw new Error(`TYPE after samples for ${name}`);
        families.set(name, { ...(f ?? { samples: [] }), type: rest });
      } else {
        const f = families.get(name);
        if (f?.help !== undefined) throw new Error(`second HELP for ${name}`);
        families.set(name, { ...(f ?? { type: '', samples: [] }), help: rest });
      }
      continue;
    }
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)(?: (-?\d+))?$/.exec(line);
    if (!m) throw new Error(`not a sample line: ${line}`);
    const [, name, labelBody, value] = m as unknown as [string, string, string | undefined, string];
    const base = familyOf(name, families);
    if (base !== current) {
      if (closed.has(base)) throw new Error(`samples of ${base} are not contiguous`);
      if (current) closed.add(current);
      current = base;
    }
    families.get(base)!.samples.push({ name, labels: labelBody ? parseLabels(labelBody, line) : {}, value: parseValue(value, line) });
  }
  for (const [name, f] of families) {
    if (!f.type) throw new Error(`${name} has HELP but no TYPE`);
    if (f.type === 'counter') for (const s of f.samples) if (!(s.value >= 0)) throw new Error(`counter ${name} is negative`);
    if (f.type === 'histogram') checkHistogram(name, f);
  }
  return families;
}

function checkHistogram(name: string, f: Family): void {
  const series = new Map<string, { buckets: Array<[number, number]>; count?: number }>();
  for (const s of f.samples) {
    const { le, ...rest } = s.labels;
    const key = JSON.stringify(rest);
    const entry = series.get(key) ?? { buckets: [] };
    series.set(key, entry);
    if (s.name === `${name}_bucket`) {
      if (le === undefined) throw new Error(`${name}_bucket without le`);
      entry.buckets.push([parseValue(le, s.name), s.value]);
    } else if (s.name === `${name}_count`) entry.count = s.value;
  }
  for (const [key, e] of series) {
    let last = -Infinity;
    let lastCount = 0;
    for (const [le, n] of e.buckets) {
      if (!(le > last) || n < lastCount) throw new Error(`${name}${key}: buckets not cumulative`);
      last = le;
      lastCount = n;
    }
    if (last !== Infinity || lastCount !== e.count) throw new Error(`${name}${key}: +Inf bucket missing or not equal to _count`);
  }
}

/** The value of one sample (name + exact labels), or undefined. */
export function sampleValue(families: Map<string, Family>, name: string, labels: Record<string, string> = {}): number | undefined {
  for (const f of families.values()) {
    for (const s of f.samples) {
      if (s.name === name && JSON.stringify(Object.entries(s.labels).sort()) === JSON.stringify(Object.entries(labels).sort())) return s.value;
    }
  }
  return undefined;
}
