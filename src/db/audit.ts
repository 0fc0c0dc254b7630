import type { Db, Tx } from './open.ts';

/** One line of the audit log: who changed which record, and how. */
export interface AuditEntry {
  at: number;
  /** `cli`, `api:<client id>`, `console:<passkey name>`, … */
  actor: string;
  action: string;
  subject: string | null;
  details?: Record<string, unknown> | null;
}

/** The audit log's one writer: in the caller's transaction when given one, so the line commits with the change. */
export async function audit(db: Db | Tx, entry: AuditEntry): Promise<void> {
  await db
    .insertInto('audit_log')
    .values({ at: entry.at, actor: entry.actor, action: entry.action, subject: entry.subject, details_json: entry.details ? JSON.stringify(entry.details) : null })
    .execute();
}
