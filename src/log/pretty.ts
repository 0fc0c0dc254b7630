// The pretty printer: a terminal watching `payd serve` gets one short line per entry instead of JSON.
const COLORS: Record<string, string> = { debug: '\x1b[90m', info: '\x1b[32m', warn: '\x1b[33m', error: '\x1b[31m' };

/** `12:00:01.234 INFO  payd listening  url=http://… livemode=true` from one JSON line. */
export function prettyLine(json: string, color: boolean): string {
  let entry: Record<string, unknown>;
  try {
    entry = JSON.parse(json);
  } catch {
    return json;
  }
  const { time, level, msg, ...fields } = entry;
  const label = String(level ?? '').toUpperCase().padEnd(5);
  const clock = typeof time === 'string' ? time.slice(11, 23) : '';
  const rest = Object.entries(fields)
    .map(([k, v]) => `${k}=${typeof v === 'string' && /^[^\s"=]+$/.test(v) ? v : JSON.stringify(v)}`)
    .join(' ');
  const lvl = color ? `${COLORS[String(level)] ?? ''}${label}\x1b[0m` : label;
  return `${clock} ${lvl} ${String(msg ?? '')}${rest ? `  ${rest}` : ''}\n`;
}
