import type { CalendarDate, TimeOfDay } from './banks/bank.ts';

const IST_OFFSET_MS = 330 * 60_000; // alerts print Indian Standard Time (+05:30, no DST)
const DAY_MS = 86_400_000;

/**
 * When the credit happened, ms since epoch. A body time wins; otherwise the Date header (DKIM-signed)
 * or the IMAP arrival time, kept inside the body's calendar day so a mail sent just after midnight
 * does not move the payment to the next day. Undefined when nothing dates the alert.
 */
export function alertTime(body: { date?: CalendarDate; time?: TimeOfDay }, headerDate?: Date, receivedAt?: number): number | undefined {
  const candidate = [headerDate?.getTime(), receivedAt].find((t): t is number => typeof t === 'number' && Number.isFinite(t));
  if (!body.date) return candidate;
  const dayStart = Date.UTC(body.date.year, body.date.month - 1, body.date.day) - IST_OFFSET_MS;
  if (body.time) return dayStart + ((body.time.hour * 60 + body.time.minute) * 60 + body.time.second) * 1000;
  if (candidate === undefined) return dayStart;
  return Math.min(Math.max(candidate, dayStart), dayStart + DAY_MS - 1000);
}
