import type { Db } from '../../db/open.ts';
import type { MerchantsTable } from '../../db/schema.ts';
import { PaydError } from '../../domain/errors.ts';
import { UUID_V4 } from '../../domain/ids.ts';
import type { Clock } from '../../domain/ports.ts';
import { audit } from '../../db/audit.ts';

export interface Merchant {
  clientId: string;
  name: string;
  webhookUrl: string | null;
  status: 'active' | 'revoked';
  createdAt: number;
}

/** Who made a change, for the audit log. */
export type Actor = 'cli' | 'api' | `console:${string}`;

export interface IssuedCredentials {
  client_id: string;
  client_secret: string;
  webhook_secret: string;
  name: string;
  webhook_url: string | null;
}

export const toMerchant = (r: MerchantsTable): Merchant => ({
  clientId: r.id,
  name: r.name,
  webhookUrl: r.webhook_url,
  status: r.status,
  createdAt: r.created_at,
});

/** The merchant's row, or NOT_FOUND (an id that is no UUID is not looked up). */
export async function merchantRow(db: Db, clientId: string): Promise<MerchantsTable> {
  const r = UUID_V4.test(clientId) ? await db.selectFrom('merchants').selectAll().where('id', '=', clientId).executeTakeFirst() : undefined;
  if (!r) throw new PaydError('NOT_FOUND', `no merchant with client id ${clientId}`);
  return r;
}

/** One audit-log line for a change to a merchant. */
export async function auditMerchant(deps: { db: Db; clock: Clock }, action: string, subject: string, details?: Record<string, unknown>, actor: Actor = 'cli'): Promise<void> {
  await audit(deps.db, { at: deps.clock.now(), actor, action, subject, details });
}
