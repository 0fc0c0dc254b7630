// Fills a migrated payd database with `count` past intents (expired, some settled) of one
// merchant, straight in SQL: a recursive CTE in 100,000-row chunks inside SQLite, no
// per-row JavaScript, so 1,000,000 rows take seconds. The payd process is not running.
import SQLite from 'better-sqlite3';

const CHUNK = 100_000;
const DAY = 86_400_000;

/** UUID v4 text (the API's id check wants the version and variant digits right). */
const UUID_SQL = `lower(hex(randomblob(4)) || '-' || hex(randomblob(2)) || '-4' || substr(hex(randomblob(2)), 2) || '-' || substr('89ab', 1 + abs(random()) % 4, 1) || substr(hex(randomblob(2)), 2) || '-' || hex(randomblob(6)))`;

export function seedIntents(dbFile: string, o: { merchantId: string; receiver: string; count: number; now: number }): { ms: number; sampleIds: string[] } {
  const t0 = performance.now();
  const db = new SQLite(dbFile);
  try {
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = OFF'); // seeding only: the bench rebuilds it if the machine dies
    db.pragma('cache_size = -200000');
    const insert = db.prepare(`
      WITH RECURSIVE n(i) AS (SELECT @from UNION ALL SELECT i + 1 FROM n WHERE i + 1 < @to)
      INSERT INTO intents (id, merchant_id, order_id, method, amount_minor, pay_amount_minor, receiver, reference, payment_uri,
                           status, return_url, created_at, expires_at, transaction_hash, verified_at, payment_id, updated_at)
      SELECT ${UUID_SQL}, @merchant, 'seed-' || i, 'UPI', printf('%040d', 100 * (1 + i % 90000)), printf('%040d', 100 * (1 + i % 90000) + i % 7), @receiver, NULL,
             'upi://pay?pa=' || @receiver || '&am=' || (1 + i % 90000) || '.00&cu=INR&tn=seed-' || i,
             CASE WHEN i % 5 = 0 THEN 'settled' ELSE 'expired' END, NULL,
             @now - 30 * ${DAY} + i, @now - 30 * ${DAY} + i + 1800000,
             CASE WHEN i % 5 = 0 THEN 'UTR' || i ELSE NULL END,
             CASE WHEN i % 5 = 0 THEN @now - 30 * ${DAY} + i + 60000 ELSE NULL END, NULL,
             @now - 30 * ${DAY} + i + 1800000
      FROM n`);
    // Secondary indexes are rebuilt once at the end: one sort instead of a million random inserts.
    const indexes = db.prepare("SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name = 'intents' AND sql IS NOT NULL").all() as Array<{ name: string; sql: string }>;
    for (const ix of indexes) db.exec(`DROP INDEX ${ix.name}`);
    for (let from = 0; from < o.count; from += CHUNK) {
      const to = Math.min(o.count, from + CHUNK);
      db.transaction(() => insert.run({ from, to, merchant: o.merchantId, receiver: o.receiver, now: o.now }))();
    }
    for (const ix of indexes) db.exec(ix.sql);
    // Past reservations on the amounts the bench's creates ask for: creates take the upsert-over-expired path too.
    db.prepare(`
      WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i + 1 < 90000)
      INSERT OR IGNORE INTO amount_reservations (method, receiver, pay_amount_minor, intent_id, reserved_until)
      SELECT 'UPI', @receiver, printf('%040d', 100 * (1 + i)), 'seed', @past FROM n`).run({ receiver: o.receiver, past: o.now - DAY });
    db.pragma('wal_checkpoint(TRUNCATE)');
    const sampleIds = (db.prepare('SELECT id FROM intents WHERE rowid % 3331 = 7 LIMIT 300').pluck().all() as string[]);
    return { ms: performance.now() - t0, sampleIds };
  } finally {
    db.close();
  }
}
