/**
 * Times as the shop reads them, in its own time zone ("28 Nov, 1:18 pm"; the year only when it
 * is not this year's), and the shop's calendar days as instants. Intl only: the zone's rules
 * come from the runtime's ICU data.
 */

/** True when the runtime knows this IANA time zone name ("Asia/Kolkata", "UTC"). */
export function isTimeZone(name: string): boolean {
  try {
    new Intl.DateTimeFormat('en-GB', { timeZone: name });
    return true;
  } catch {
    return false;
  }
}

/** The machine's own zone: what a shop that names none reads its times in. */
export const machineTimeZone = (): string => Intl.DateTimeFormat().resolvedOptions().timeZone;

export interface ShopTime {
  readonly zone: string;
  /** "28 Nov, 1:18 pm" ("28 Nov 2025, 1:18 pm" in another year than `now`'s); null/undefined: "—". */
  format(ms: number | null | undefined): string;
  /** The instant the shop's day holding `ms` began. */
  startOfDay(ms: number): number;
  /** "2026-11-20" → the instant that day (plus `plusDays`) began in the shop; anything else → undefined. */
  dayStart(date: string, plusDays?: number): number | undefined;
}

export function shopTime(zone: string, now: () => number): ShopTime {
  const parts = new Intl.DateTimeFormat('en-GB', { timeZone: zone, year: 'numeric', month: 'short', day: 'numeric', hour: 'numeric', minute: '2-digit', hourCycle: 'h12' });
  const ymd = new Intl.DateTimeFormat('en-CA', { timeZone: zone, year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit', hourCycle: 'h23' });
  const fields = (ms: number) => Object.fromEntries(parts.formatToParts(ms).map((p) => [p.type, p.value]));
  /** The zone's offset from UTC at `ms`, read from its wall clock. */
  const offset = (ms: number): number => {
    const f = Object.fromEntries(ymd.formatToParts(ms).map((p) => [p.type, Number(p.value)]));
    return Date.UTC(f.year!, f.month! - 1, f.day!, f.hour!, f.minute!, f.second!) - Math.floor(ms / 1000) * 1000;
  };
  /** Local midnight of y-m-d as an instant (a zone whose offset changes that night: the offset after the change). */
  const midnight = (y: number, m: number, d: number): number => {
    const wall = Date.UTC(y, m - 1, d);
    const first = wall - offset(wall);
    return wall - offset(first);
  };
  return {
    zone,
    format(ms) {
      if (ms === null || ms === undefined || !Number.isFinite(ms)) return '—';
      const f = fields(ms);
      const year = f.year === fields(now()).year ? '' : ` ${f.year}`;
      return `${f.day} ${f.month}${year}, ${f.hour}:${f.minute} ${(f.dayPeriod ?? '').toLowerCase()}`.trimEnd();
    },
    startOfDay(ms) {
      const f = Object.fromEntries(ymd.formatToParts(ms).map((p) => [p.type, Number(p.value)]));
      return midnight(f.year!, f.month!, f.day!);
    },
    dayStart(date, plusDays = 0) {
      if (!/^\d{4}-\d{2}-\d{2}$/.test(date)) return undefined;
      const [y, m, d] = date.split('-').map(Number) as [number, number, number];
      const given = new Date(Date.UTC(y, m - 1, d));
      if (given.getUTCMonth() !== m - 1 || given.getUTCDate() !== d) return undefined;
      const day = new Date(Date.UTC(y, m - 1, d + plusDays));
      return midnight(day.getUTCFullYear(), day.getUTCMonth() + 1, day.getUTCDate());
    },
  };
}
