import type { H3Event } from 'h3';

/** A request header; under Node read from the raw request (building web Headers costs more than the lookup). */
export function header(event: H3Event, name: string): string | undefined {
  const raw = event.runtime?.node?.req?.headers[name];
  if (raw !== undefined) return Array.isArray(raw) ? raw.join(', ') : raw;
  return event.req.headers.get(name) ?? undefined;
}
