const DAY_MS = 86_400_000;
/** 10000-01-01T00:00:00Z: from here on toISOString writes a 6-digit year. */
const YEAR_10000_MS = 253_402_300_800_000;

const pad2 = (n: number): string => (n < 10 ? '0' : '') + n;

/**
 * `new Date(ms).toISOString()` for whole milliseconds in 1970–9999, by arithmetic: the fetch
 * reply carries three timestamps, and building a Date for each cost a third of its view.
 * Anything else goes through Date itself.
 */
export function isoUtc(ms: number): string {
  if (!Number.isInteger(ms) || ms < 0 || ms >= YEAR_10000_MS) return new Date(ms).toISOString();
  const days = Math.floor(ms / DAY_MS);
  let t = ms - days * DAY_MS;
  // Civil date from days since 1970-01-01 (H. Hinnant's days_from_civil inverse, eras of 400 years from 0000-03-01).
  const z = days + 719_468;
  const era = Math.floor(z / 146_097);
  const doe = z - era * 146_097;
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36_524) - Math.floor(doe / 146_096)) / 365);
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const day = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const month = mp < 10 ? mp + 3 : mp - 9;
  const year = yoe + era * 400 + (month <= 2 ? 1 : 0);
  const hh = Math.floor(t / 3_600_000);
  t -= hh * 3_600_000;
  const mm = Math.floor(t / 60_000);
  t -= mm * 60_000;
  const ss = Math.floor(t / 1000);
  const msec = t - ss * 1000;
  const y = year < 1000 ? String(year).padStart(4, '0') : String(year);
  return `${y}-${pad2(month)}-${pad2(day)}T${pad2(hh)}:${pad2(mm)}:${pad2(ss)}.${msec < 10 ? '00' : msec < 100 ? '0' : ''}${msec}Z`;
}

/** A stored time that may be absent (never delivered, never seen): its ISO 8601 text, or null. */
export const isoOrNull = (ms: number | null): string | null => (ms === null ? null : isoUtc(ms));
