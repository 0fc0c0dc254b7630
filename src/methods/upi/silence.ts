/**
 * UPI silence (the UPI descriptor's `silence`): a mailbox that stops receiving bank alerts looks exactly like a shop with no sales.
 * Derived from what the ledger already records, so it survives restarts, works on both stores and
 * reads the same in every process: a verified alert is a UPI payment from the mailbox (source
 * "imap") whose evidence says its DKIM signature verified, credited to a configured account.
 */
import type { Db } from '../../db/open.ts';
import type { Clock } from '../../domain/ports.ts';
import type { MethodSilence, SilenceReport } from '../method.ts';
import { maskMatches } from './account-mask.ts';

export interface WatchedAccount {
  bank: string;
  accountEnding: string;
}

/** One account's newest verified alert; `account` is the configured last 4 digits (a whole account number is never shown). */
type AccountAlert = SilenceReport['accounts'][number];

/** Rows read per query while looking for an account's newest verified alert. */
const PAGE = 200;

interface Row {
  id: string;
  observed_at: number;
  evidence_json: string | null;
}

function verifiedFor(row: Row, a: WatchedAccount): boolean {
  let e: { bank?: unknown; accountMask?: unknown; auth?: { verified?: unknown } };
  try {
    e = JSON.parse(row.evidence_json ?? 'null') ?? {};
  } catch {
    return false;
  }
  return e.bank === a.bank && e.auth?.verified === true && typeof e.accountMask === 'string' && maskMatches(e.accountMask, a.accountEnding);
}

/**
 * `status()` answers from the database, with the facts cached for `cacheMs` of real time (a
 * /readyz poll or a scrape must not re-read the ledger each time); the verdict uses the clock.
 */
export function createUpiSilence(deps: { db: Db; clock: Clock; /** The method's id: the rows it reads. */ method: string; accounts: WatchedAccount[]; expectAlertWithinHours?: number; cacheMs?: number }): MethodSilence {
  const expectMs = deps.expectAlertWithinHours === undefined ? undefined : deps.expectAlertWithinHours * 3_600_000;
  const cacheMs = deps.cacheMs ?? 2_000;
  let cached: { at: number; facts: Promise<Omit<SilenceReport, 'silent' | 'expectMs'>> } | undefined;

  /** Newest first, keyset-paged; the bank is filtered in SQL (evidence is JSON text written by the ledger), the rest here. */
  async function newestVerified(a: WatchedAccount): Promise<number | null> {
    let after: { at: number; id: string } | undefined;
    for (;;) {
      let q = deps.db
        .selectFrom('payments')
        .select(['id', 'observed_at', 'evidence_json'])
        .where('method', '=', deps.method)
        .where('source', '=', 'imap')
        .where('evidence_json', 'like', `%"bank":"${a.bank}"%`);
      if (after) {
        const { at, id } = after;
        q = q.where((eb) => eb.or([eb('observed_at', '<', at), eb.and([eb('observed_at', '=', at), eb('id', '<', id)])]));
      }
      const rows = (await q.orderBy('observed_at', 'desc').orderBy('id', 'desc').limit(PAGE).execute()) as Row[];
      const hit = rows.find((r) => verifiedFor(r, a));
      if (hit) return Number(hit.observed_at);
      if (rows.length < PAGE) return null;
      const last = rows[rows.length - 1]!;
      after = { at: Number(last.observed_at), id: last.id };
    }
  }

  async function facts(): Promise<Omit<SilenceReport, 'silent' | 'expectMs'>> {
    const accounts: AccountAlert[] = [];
    for (const a of deps.accounts) accounts.push({ bank: a.bank, account: a.accountEnding.slice(-4), lastAlertAt: await newestVerified(a) });
    const times = accounts.map((a) => a.lastAlertAt).filter((t): t is number => t !== null);
    const lastAlertAt = times.length ? Math.max(...times) : null;
    let q = deps.db.selectFrom('intents').select((eb) => eb.fn.min('created_at').as('first')).where('method', '=', deps.method);
    if (lastAlertAt !== null) q = q.where('created_at', '>', lastAlertAt);
    const first = (await q.executeTakeFirst())?.first;
    return { accounts, lastAlertAt, waitingSince: first === null || first === undefined ? null : Number(first) };
  }

  return {
    method: deps.method,
    expectMs,
    async status(): Promise<SilenceReport> {
      const real = performance.now();
      if (!cached || real - cached.at > cacheMs) {
        const p = facts();
        cached = { at: real, facts: p };
        p.catch(() => (cached = undefined));
      }
      const f = await cached.facts;
      const silent = expectMs !== undefined && f.waitingSince !== null && deps.clock.now() - f.waitingSince > expectMs;
      return { ...f, ...(expectMs !== undefined ? { expectMs } : {}), silent };
    },
  };
}

