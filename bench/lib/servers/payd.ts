// A real payd serving HTTP (no workers), seeded with intents to fetch. Run by bench/sections/api.ts.
import { serveChild } from '../child.ts';
import { startBenchPayd } from '../harness.ts';

export interface PaydServerData {
  url: string;
  headers: Record<string, string>;
  intentIds: string[];
  dbFile: string;
}

const seed = Number(process.argv[2] ?? 300);

serveChild<PaydServerData>(async () => {
  const p = await startBenchPayd({ http: true, workers: false });
  const m = await p.merchant();
  const merchant = await p.app.merchants.get(m.clientId);
  const intentIds: string[] = [];
  for (let i = 0; i < seed; i++) {
    // Amounts far from the ones the create run uses (benchAmount starts at 5).
    const created = await p.app.intents.create(merchant, { amount: 900_000 + i, currency: 'UPI', order_id: `seed-${i}` });
    intentIds.push(created.intent_id);
  }
  return { data: { url: p.url!, headers: m.headers, intentIds, dbFile: p.app.dbFile }, close: () => p.close() };
});

