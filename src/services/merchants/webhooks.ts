import type { Db } from '../../db/open.ts';
import type { Clock, Random } from '../../domain/ports.ts';
import { checkWebhookUrl } from '../../domain/webhook-url.ts';
import type { Keyring } from '../keys.ts';
import { auditMerchant, merchantRow, toMerchant, type Actor, type Merchant } from './row.ts';

export const newWebhookSecret = (random: Random) => `whsec_${Buffer.from(random.bytes(32)).toString('base64')}`;

/** A webhook URL as stored: null for none; otherwise checked (https, or http to loopback unless allowed). */
export function validWebhookUrl(url: string | null | undefined, options: { allowInsecureUrls: boolean; allowLoopback: boolean; allowPrivateNetworks: boolean }): string | null {
  if (url === undefined || url === null || url === '') return null;
  checkWebhookUrl(url, { allowInsecure: options.allowInsecureUrls, allowLoopback: options.allowLoopback, allowPrivateNetworks: options.allowPrivateNetworks });
  return url;
}

export interface MerchantWebhookDeps {
  db: Db;
  keys: Keyring;
  clock: Clock;
  random: Random;
  allowInsecureUrls: boolean;
  allowLoopback: boolean;
  /** Webhooks may target private networks (webhooks.allowPrivateNetworks). */
  allowPrivateNetworks: boolean;
  /** How long the previous webhook secret keeps signing after a rotation, seconds. */
  rotationGraceSeconds: number;
}

/** A merchant's webhook endpoint: its URL and signing secrets (the dispatcher's WebhookEndpoints). */
export function merchantWebhooks(deps: MerchantWebhookDeps, forget: (clientId: string) => void) {
  const row = (clientId: string) => merchantRow(deps.db, clientId);
  const audit = (action: string, subject: string, details?: Record<string, unknown>, actor: Actor = 'cli') => auditMerchant(deps, action, subject, details, actor);
  const validUrl = (url: string | null) => validWebhookUrl(url, deps);

  return {
    /** The one webhook-URL rule for the CLI and the API (https, or http to loopback unless allowed). */
    async setWebhook(clientId: string, url: string | null, actor: Actor = 'cli'): Promise<Merchant> {
      await row(clientId);
      const webhookUrl = validUrl(url);
      await deps.db.updateTable('merchants').set({ webhook_url: webhookUrl, updated_at: deps.clock.now() }).where('id', '=', clientId).execute();
      forget(clientId);
      await audit('merchant.set-webhook', clientId, { webhook_url: webhookUrl }, actor);
      return toMerchant(await row(clientId));
    },

    /** New webhook secret; the previous one also signs for the grace period so receivers can switch over. */
    async rotateWebhookSecret(clientId: string, actor: Actor = 'cli'): Promise<{ client_id: string; webhook_secret: string; previous_valid_until: string }> {
      const keys = await deps.keys.get();
      const r = await row(clientId);
      const whsec = newWebhookSecret(deps.random);
      const now = deps.clock.now();
      const until = now + deps.rotationGraceSeconds * 1000;
      await deps.db
        .updateTable('merchants')
        .set({
          webhook_secret_sealed: keys.seal(whsec, deps.random),
          webhook_secret_prev_sealed: r.webhook_secret_sealed,
          webhook_secret_prev_until: until,
          updated_at: now,
        })
        .where('id', '=', clientId)
        .execute();
      await audit('merchant.rotate-webhook-secret', clientId, undefined, actor);
      return { client_id: clientId, webhook_secret: whsec, previous_valid_until: new Date(until).toISOString() };
    },

    /** The webhook endpoint as a merchant may see it: its URL and the last 4 characters of the secret. */
    async webhookEndpoint(clientId: string): Promise<{ url: string | null; secret_hint: string }> {
      const keys = await deps.keys.get();
      const r = await row(clientId);
      return { url: r.webhook_url, secret_hint: `whsec_…${keys.unseal(r.webhook_secret_sealed).slice(-4)}` };
    },

    /** Signing secrets for a delivery: the current one, plus the previous one during a rotation. */
    async signingSecrets(clientId: string): Promise<string[]> {
      const keys = await deps.keys.get();
      const r = await row(clientId);
      const secrets = [keys.unseal(r.webhook_secret_sealed)];
      if (r.webhook_secret_prev_sealed && (r.webhook_secret_prev_until ?? 0) > deps.clock.now()) secrets.push(keys.unseal(r.webhook_secret_prev_sealed));
      return secrets;
    },
  };
}
