// Ad-hoc: the cost of one intent fetch's SELECT on payd's real schema (better-sqlite3 directly): object rows, array rows, id only.
import SQLite from 'better-sqlite3';
import { randomUUID } from 'node:crypto';
import { preparePaydDir } from '../lib/payd-process.ts';
import { INTENT_COLUMNS, intentFromColumns, intentFromRow } from '../../src/db/intent-rows.ts';
const d = preparePaydDir({ methods: 'none' });
const w = new SQLite(d.dbFile);
const cols = (w.prepare('PRAGMA table_info(intents)').all() as any[]).map((c) => c.name);
console.log(cols.length, 'columns:', cols.join(' '));
const m = (w.prepare('SELECT id FROM merchants').get() as any).id;
const ids: string[] = [];
const ins = w.prepare(`INSERT INTO intents (id, merchant_id, order_id, method, amount_minor, pay_amount_minor, receiver, reference, payment_uri, status, return_url, created_at, expires_at, updated_at) VALUES (?, ?, ?, 'UPI', printf('%040d', 100000), printf('%040d', 100000), 'shop@upi', ?, 'upi://pay?pa=shop@upi&pn=Shop&am=1000.00&tn=REF12345&cu=INR', 'pending', 'https://shop.example/return', ?, ?, ?)`);
for (let i = 0; i < 300; i++) { const id = randomUUID(); ids.push(id); ins.run(id, m, `o-${i}`, `REF${i}`, Date.now(), Date.now() + 9e5, Date.now()); }
const r = new SQLite(d.dbFile, { fileMustExist: true }); r.pragma('query_only = ON');
const obj = r.prepare('SELECT * FROM intents WHERE id = ?');
const raw = r.prepare(`SELECT ${INTENT_COLUMNS.join(', ')} FROM intents WHERE id = ?`).raw(true);
const one = r.prepare('SELECT id FROM intents WHERE id = ?').pluck(true);
const bench = (name: string, f: (id: string) => unknown) => {
  for (let i = 0; i < 50000; i++) f(ids[i % 300]!);
  const t = process.hrtime.bigint(); const N = 300000;
  for (let i = 0; i < N; i++) f(ids[i % 300]!);
  console.log(name.padEnd(28), (Number(process.hrtime.bigint() - t) / N / 1000).toFixed(2), 'µs');
};
for (let k = 0; k < 2; k++) {
  bench('get (object)', (id) => obj.get(id));
  bench('get + intentFromRow', (id) => intentFromRow(obj.get(id) as any));
  bench('raw get (array)', (id) => raw.get(id));
  bench('raw get + intentFromColumns', (id) => intentFromColumns(raw.get(id) as any));
  bench('pluck id only', (id) => one.get(id));
  bench('writer conn get (object)', (id) => w.prepare('SELECT * FROM intents WHERE id = ?').get(id));
}
if (process.env.WRITES) {
  // A write on the other connection every millisecond-ish: the reader's page cache is invalidated after each commit.
  const upd = w.prepare('UPDATE intents SET updated_at = ? WHERE id = ?');
  let k = 0;
  const withWrites = (f: (id: string) => unknown) => (id: string) => { if ((k++ & 63) === 0) upd.run(Date.now(), ids[k % 300]); return f(id); };
  bench('raw get, a write every 64', withWrites((id) => raw.get(id)));
  bench('object get, a write every 64', withWrites((id) => obj.get(id)));
}
d.close();
