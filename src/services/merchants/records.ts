import type { Db } from '../../db/open.ts';
import { PaydError } from '../../domain/errors.ts';
import { isoOrNull } from '../../domain/iso-time.ts';
import type { Clock, Random } from '../../domain/ports.ts';
import type { Keyring } from '../keys.ts';
import { auditMerchant, merchantRow, toMerchant, type Actor, type IssuedCredentials, type Merchant } from './row.ts';
import { newWebhookSecret, validWebhookUrl } from './webhooks.ts';

export interface MerchantRecordDeps {
  db: Db;
  /** The master key, resolved (and checked against the database) at first use. */
  keys: Keyring;
  clock: Clock;
  random: Random;
  livemode: boolean;
  allowInsecureUrls: boolean;
  /** Webhooks may target loopback (webhooks.allowLoopback; the sandbox). */
  allowLoopback: boolean;
  /** Webhooks may target private networks (webhooks.allowPrivateNetworks). */
  allowPrivateNetworks: boolean;
}

/** Merchants as records: create, list, get, rotate the client secret, revoke. `forget` drops cached credentials. */
export function merchantRecords(deps: MerchantRecordDeps, forget: (clientId: string) => void) {
  const newClientSecret = () => `${deps.livemode ? 'sk_live_' : 'sk_test_'}${Buffer.from(deps.random.bytes(32)).toString('base64url')}`;
  const validName = (name: string) => {
    const n = name.trim();
    if (!n || n.length > 200) throw new PaydError('INVALID_REQUEST', 'merchant name must be 1 to 200 characters');
    return n;
  };
  const row = (clientId: string) => merchantRow(deps.db, clientId);
  const audit = (action: string, subject: string, details: Record<string, unknown> | undefined, actor: Actor) => auditMerchant(deps, action, subject, details, actor);

  return {
    async create(input: { name: string; webhookUrl?: string | null }, actor: Actor = 'cli'): Promise<IssuedCredentials> {
      const name = validName(input.name);
      const webhookUrl = validWebhookUrl(input.webhookUrl, deps);
      const keys = await deps.keys.get();
      const clientId = deps.random.uuid();
      const secret = newClientSecret();
      const whsec = newWebhookSecret(deps.random);
      const now = deps.clock.now();
      await deps.db
        .insertInto('merchants')
        .values({
          id: clientId,
          name,
          secret_hash: keys.hashSecret(secret),
          webhook_url: webhookUrl,
          webhook_secret_sealed: keys.seal(whsec, deps.random),
          webhook_secret_prev_sealed: null,
          webhook_secret_prev_until: null,
          status: 'active',
          created_at: now,
          updated_at: now,
        })
        .execute();
      await audit('merchant.create', clientId, { name, webhook_url: webhookUrl }, actor);
      return { client_id: clientId, client_secret: secret, webhook_secret: whsec, name, webhook_url: webhookUrl };
    },

    async list(): Promise<Merchant[]> {
      const rows = await deps.db.selectFrom('merchants').selectAll().orderBy('created_at').execute();
      return rows.map(toMerchant);
    },

    async get(clientId: string): Promise<Merchant> {
      return toMerchant(await row(clientId));
    },

    /**
     * Issues a new client secret. The old one keeps working for `graceSeconds` (0: stops at
     * once), so a merchant can deploy the new key without downtime.
     */
    async rotateSecret(clientId: string, graceSeconds: number, actor: Actor = 'cli'): Promise<{ client_id: string; client_secret: string; previous_valid_until: string | null }> {
      const keys = await deps.keys.get();
      const r = await row(clientId);
      if (r.status === 'revoked') throw new PaydError('CONFLICT', `merchant ${clientId} is revoked`);
      if (!Number.isFinite(graceSeconds) || graceSeconds < 0) throw new PaydError('INVALID_REQUEST', 'grace must be zero or more seconds');
      const secret = newClientSecret();
      const now = deps.clock.now();
      const until = graceSeconds > 0 ? now + Math.round(graceSeconds * 1000) : null;
      await deps.db
        .updateTable('merchants')
        .set({ secret_hash: keys.hashSecret(secret), secret_prev_hash: until === null ? null : r.secret_hash, secret_prev_until: until, updated_at: now })
        .where('id', '=', clientId)
        .execute();
      forget(clientId);
      await audit('merchant.rotate-secret', clientId, { grace_seconds: graceSeconds }, actor);
      return { client_id: clientId, client_secret: secret, previous_valid_until: isoOrNull(until) };
    },

    async revoke(clientId: string, actor: Actor = 'cli'): Promise<void> {
      await row(clientId);
      await deps.db.updateTable('merchants').set({ status: 'revoked', updated_at: deps.clock.now() }).where('id', '=', clientId).execute();
      forget(clientId);
      await audit('merchant.revoke', clientId, undefined, actor);
    },
  };
}
