import type { Kysely } from 'kysely';

// Frozen: never edit a migration that has shipped; add a new one.
// A UID is marked here before its mail is inspected and unmarked with its outcome: a mark found
// at the next start means the inspection took the process down, so the mail is rejected
// `inspector_crash` instead of being fetched again (no crash loop).
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('upi_inspecting')
    .addColumn('mailbox', 'text', (c) => c.notNull())
    .addColumn('ref', 'text', (c) => c.notNull()) // imap:<uidvalidity>:<uid>
    .addColumn('uid', 'integer', (c) => c.notNull())
    .addColumn('started_at', 'integer', (c) => c.notNull())
    // The run that marked it: its own mark (a database write failed after the inspection) is no crash.
    .addColumn('holder', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('upi_inspecting_pk', ['mailbox', 'ref'])
    .execute();
  // Rejected mail is pruned by age (methods.UPI.keepRejectedDays).
  await db.schema.createIndex('rejections_source_observed').on('rejections').columns(['source', 'observed_at']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('rejections_source_observed').execute();
  await db.schema.dropTable('upi_inspecting').execute();
}
