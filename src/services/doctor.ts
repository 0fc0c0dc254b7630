import type { Db } from '../db/open.ts';
import type { Clock } from '../domain/ports.ts';
import type { PaymentSource } from '../methods/source.ts';

export interface DoctorLine {
  ok: boolean;
  what: string;
  message: string;
}

/**
 * `payd doctor`: the config, the database and every enabled upstream, one line each.
 * The caller prints the lines; any line not ok makes the run fail.
 */
/** How far back `doctor` looks for references that arrived twice with other facts, ms. */
const MISMATCH_WINDOW_MS = 7 * 86_400_000;

export function createDoctor(d: { dbFile: string; db: Db; clock: Clock; livemode: boolean; methods: string[]; sources: () => Promise<PaymentSource[]>; timeoutMs?: number }) {
  return {
    async run(): Promise<DoctorLine[]> {
      const lines: DoctorLine[] = [
        { ok: true, what: 'config', message: 'valid' },
        { ok: true, what: 'database', message: `${d.dbFile} (migrated)` },
      ];
      if (!d.livemode) lines.push({ ok: true, what: 'mode', message: 'sandbox (every method simulated)' });
      else if (d.methods.length === 0)
        lines.push({ ok: false, what: 'methods', message: 'none enabled: a live daemon cannot take a payment (add a section under "methods" in the config; see config/payd.config.example.json)' });
      else lines.push({ ok: true, what: 'methods', message: d.methods.join(', ') });
      const mismatches = await countMismatches();
      if (mismatches > 0) {
        lines.push({
          ok: false,
          what: 'payments',
          message: `${mismatches} observation${mismatches === 1 ? '' : 's'} in the last 7 days repeated a recorded reference with another amount, receiver or account (duplicate_reference_mismatch): one may be a payment that settled nothing; see \`payd payments list --rejected\``,
        });
      }
      for (const source of await d.sources()) {
        try {
          const r = await source.check(AbortSignal.timeout(d.timeoutMs ?? 15_000));
          lines.push({ ok: r.ok, what: source.name, message: r.message });
        } catch (err) {
          lines.push({ ok: false, what: source.name, message: (err as Error).message });
        }
      }
      return lines;
    },
  };

  async function countMismatches(): Promise<number> {
    const row = await d.db
      .selectFrom('rejections')
      .select((eb) => eb.fn.countAll<number | string | bigint>().as('n'))
      .where('reason', '=', 'duplicate_reference_mismatch')
      .where('observed_at', '>=', d.clock.now() - MISMATCH_WINDOW_MS)
      .executeTakeFirst();
    return Number(row?.n ?? 0);
  }
}
