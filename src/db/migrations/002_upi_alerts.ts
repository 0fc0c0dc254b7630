import type { Kysely } from 'kysely';

// Frozen: never edit a migration that has shipped; add a new one.
// UPI mail that has no outcome yet (parked: the bank's DKIM key or DMARC record could not be
// fetched) and verified bank mail no template reads (template churn, counted by `payd doctor`).
// Both keep the raw message: it may be the only copy of a customer's payment.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('upi_parked_mail')
    .addColumn('mailbox', 'text', (c) => c.notNull()) // the mailbox checkpoint key
    .addColumn('ref', 'text', (c) => c.notNull()) // imap:<uidvalidity>:<uid>
    .addColumn('uid_validity', 'text', (c) => c.notNull())
    .addColumn('uid', 'integer', (c) => c.notNull())
    .addColumn('raw', 'blob', (c) => c.notNull())
    .addColumn('received_at', 'integer') // IMAP INTERNALDATE, ms
    .addColumn('bank', 'text')
    .addColumn('reason', 'text', (c) => c.notNull())
    .addColumn('parked_at', 'integer', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull())
    .addColumn('next_attempt_at', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('upi_parked_mail_pk', ['mailbox', 'ref'])
    .execute();
  await db.schema.createIndex('upi_parked_mail_due').on('upi_parked_mail').columns(['mailbox', 'next_attempt_at']).execute();

  await db.schema
    .createTable('upi_unread_alerts')
    .addColumn('mailbox', 'text', (c) => c.notNull())
    .addColumn('ref', 'text', (c) => c.notNull())
    .addColumn('bank', 'text', (c) => c.notNull())
    .addColumn('subject', 'text')
    .addColumn('raw', 'blob', (c) => c.notNull())
    .addColumn('observed_at', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('upi_unread_alerts_pk', ['mailbox', 'ref'])
    .execute();
  await db.schema.createIndex('upi_unread_alerts_observed').on('upi_unread_alerts').column('observed_at').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('upi_unread_alerts').ifExists().execute();
  await db.schema.dropTable('upi_parked_mail').ifExists().execute();
}
