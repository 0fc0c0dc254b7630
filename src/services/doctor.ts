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
export function createDoctor(d: { dbFile: string; livemode: boolean; methods: string[]; sources: () => Promise<PaymentSource[]>; timeoutMs?: number }) {
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
}
