import { sql, type Kysely } from 'kysely';

// Frozen: never edit a migration that has shipped; add a new one.
// SQLite's 009: UIDs being inspected (a mark left by a crash rejects the mail `inspector_crash`)
// and an index to prune rejected mail by age.
const statements = [
  `CREATE TABLE upi_inspecting (
     mailbox text NOT NULL, ref text NOT NULL, uid bigint NOT NULL, started_at bigint NOT NULL, holder text NOT NULL,
     CONSTRAINT upi_inspecting_pk PRIMARY KEY (mailbox, ref))`,
  `CREATE INDEX rejections_source_observed ON rejections (source, observed_at)`,
];

export async function up(db: Kysely<any>): Promise<void> {
  for (const s of statements) await sql.raw(s).execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql.raw('DROP INDEX IF EXISTS rejections_source_observed').execute(db);
  await sql.raw('DROP TABLE IF EXISTS upi_inspecting').execute(db);
}
