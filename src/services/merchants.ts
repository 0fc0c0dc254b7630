import { timingSafeEqual } from 'node:crypto';
import type { Awaitable } from '../domain/awaitable.ts';
import type { Db } from '../db/open.ts';
import type { MerchantsTable } from '../db/schema.ts';
import { PaydError } from '../domain/errors.ts';
import type { Clock, Random } from '../domain/ports.ts';
import { checkWebhookUrl } from '../webhooks/url.ts';
import type { Keyring, Keys } from './keys.ts';

export const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i;

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

export interface MerchantServiceDeps {
  db: Db;
  /** The master key, resolved (and checked against the database) at first use. */
  keys: Keyring;
  clock: Clock;
  random: Random;
  livemode: boolean;
  allowInsecureUrls: boolean;
  /** Webhooks may target loopback (webhooks.allowLoopback; the sandbox). */
  allowLoopback: boolean;
  /** How long the previous webhook secret keeps signing after a rotation, seconds. */
  rotationGraceSeconds: number;
}

const toMerchant = (r: MerchantsTable): Merchant => ({
  clientId: r.id,
  name: r.name,
  webhookUrl: r.webhook_url,
  status: r.status,
  createdAt: r.created_at,
});

const invalid = () => new PaydError('AUTH_INVALID_SECRET', 'invalid credentials');

/** Equal secrets, in time that depends only on the length (a secret's length is public). */
function sameSecret(presented: string, verified: Buffer): boolean {
  const p = Buffer.from(presented);
  return p.length === verified.length && timingSafeEqual(p, verified);
}

interface AuthCacheEntry {
  merchant: Merchant;
  hash: string;
  prevHash: string | null;
  prevUntil: number | null;
  until: number;
  verified: Buffer | null;
  verifiedUntil: number;
}

/** How long a verified credential is trusted without reading the database again, ms. */
const AUTH_CACHE_MS = 1000;

export function createMerchantService(d: MerchantServiceDeps) {
  // Saves a SELECT per request; a revoke or rotation from another process (the CLI) takes
  // effect within AUTH_CACHE_MS, in this process at once.
  // `verified`: the secret last presented and verified against this entry, so the same
  // merchant's next requests cost a constant-time comparison instead of an HMAC (until `verifiedUntil`:
  // a previous secret stops at the end of its grace period).
  const authCache = new Map<string, AuthCacheEntry>();
  // One read of a merchant's row at a time: a burst of the same merchant's requests past the
  // cache's expiry shares it instead of each taking a pooled connection (issue 28: on
  // PostgreSQL those reads queued in front of the burst's creates).
  const reading = new Map<string, Promise<MerchantsTable | undefined>>();
  const readForAuth = (id: string): Promise<MerchantsTable | undefined> => {
    let read = reading.get(id);
    if (!read) {
      read = d.db.selectFrom('merchants').selectAll().where('id', '=', id).executeTakeFirst();
      const settled = () => {
        if (reading.get(id) === read) reading.delete(id);
      };
      read.then(settled, settled);
      reading.set(id, read);
    }
    return read;
  };
  /** A change in this process takes effect at once: no cached entry, no read begun before it. */
  const forget = (id: string) => {
    authCache.delete(id);
    reading.delete(id);
  };
  const newClientSecret = () => `${d.livemode ? 'sk_live_' : 'sk_test_'}${Buffer.from(d.random.bytes(32)).toString('base64url')}`;
  const newWebhookSecret = () => `whsec_${Buffer.from(d.random.bytes(32)).toString('base64')}`;

  const validName = (name: string) => {
    const n = name.trim();
    if (!n || n.length > 200) throw new PaydError('INVALID_REQUEST', 'merchant name must be 1 to 200 characters');
    return n;
  };
  const validUrl = (url: string | null | undefined) => {
    if (url === undefined || url === null || url === '') return null;
    checkWebhookUrl(url, { allowInsecure: d.allowInsecureUrls, allowLoopback: d.allowLoopback });
    return url;
  };

  async function row(clientId: string): Promise<MerchantsTable> {
    const r = UUID_V4.test(clientId) ? await d.db.selectFrom('merchants').selectAll().where('id', '=', clientId).executeTakeFirst() : undefined;
    if (!r) throw new PaydError('NOT_FOUND', `no merchant with client id ${clientId}`);
    return r;
  }

  async function audit(action: string, subject: string, details?: Record<string, unknown>, actor: Actor = 'cli') {
    await d.db
      .insertInto('audit_log')
      .values({ at: d.clock.now(), actor, action, subject, details_json: details ? JSON.stringify(details) : null })
      .execute();
  }

  /** The credential check past the cache's fast path: an HMAC against the cached hashes, or a read of the merchant. */
  async function verify(id: string, secret: string, now: number, hit: AuthCacheEntry | undefined): Promise<Merchant> {
    const keys: Keys = d.keys.current ?? (await d.keys.get());
    /** Which stored hash the secret matches: the current one, the previous one (within its grace), or none. */
    const matches = (c: { hash: string; prevHash: string | null; prevUntil: number | null }): 'current' | 'previous' | null =>
      keys.verifySecret(secret, c.hash) ? 'current' : c.prevHash !== null && (c.prevUntil ?? 0) > now && keys.verifySecret(secret, c.prevHash) ? 'previous' : null;
    const trust = (entry: AuthCacheEntry, match: 'current' | 'previous') => {
      entry.verified = Buffer.from(secret);
      entry.verifiedUntil = match === 'current' ? entry.until : Math.min(entry.until, entry.prevUntil ?? 0);
    };
    if (hit && hit.until > now) {
      const match = matches(hit);
      if (!match) throw invalid();
      trust(hit, match);
      return hit.merchant;
    }
    const r = await readForAuth(id);
    // Hash even when the merchant is unknown so timing does not reveal which ids exist.
    const creds = { hash: r?.secret_hash ?? '0'.repeat(64), prevHash: r?.secret_prev_hash ?? null, prevUntil: r?.secret_prev_until ?? null };
    const match = matches(creds);
    if (!r || !match || r.status !== 'active') throw invalid();
    const merchant = toMerchant(r);
    if (authCache.size >= 10_000) authCache.clear();
    const entry: AuthCacheEntry = { merchant, ...creds, until: now + AUTH_CACHE_MS, verified: null, verifiedUntil: 0 };
    trust(entry, match);
    authCache.set(id, entry);
    return merchant;
  }

  return {
    async create(input: { name: string; webhookUrl?: string | null }, actor: Actor = 'cli'): Promise<IssuedCredentials> {
      const name = validName(input.name);
      const webhookUrl = validUrl(input.webhookUrl);
      const keys = await d.keys.get();
      const clientId = d.random.uuid();
      const secret = newClientSecret();
      const whsec = newWebhookSecret();
      const now = d.clock.now();
      await d.db
        .insertInto('merchants')
        .values({
          id: clientId,
          name,
          secret_hash: keys.hashSecret(secret),
          webhook_url: webhookUrl,
          webhook_secret_sealed: keys.seal(whsec, d.random),
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
      const rows = await d.db.selectFrom('merchants').selectAll().orderBy('created_at').execute();
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
      const keys = await d.keys.get();
      const r = await row(clientId);
      if (r.status === 'revoked') throw new PaydError('CONFLICT', `merchant ${clientId} is revoked`);
      if (!Number.isFinite(graceSeconds) || graceSeconds < 0) throw new PaydError('INVALID_REQUEST', 'grace must be zero or more seconds');
      const secret = newClientSecret();
      const now = d.clock.now();
      const until = graceSeconds > 0 ? now + Math.round(graceSeconds * 1000) : null;
      await d.db
        .updateTable('merchants')
        .set({ secret_hash: keys.hashSecret(secret), secret_prev_hash: until === null ? null : r.secret_hash, secret_prev_until: until, updated_at: now })
        .where('id', '=', clientId)
        .execute();
      forget(clientId);
      await audit('merchant.rotate-secret', clientId, { grace_seconds: graceSeconds }, actor);
      return { client_id: clientId, client_secret: secret, previous_valid_until: until === null ? null : new Date(until).toISOString() };
    },

    async revoke(clientId: string, actor: Actor = 'cli'): Promise<void> {
      await row(clientId);
      await d.db.updateTable('merchants').set({ status: 'revoked', updated_at: d.clock.now() }).where('id', '=', clientId).execute();
      forget(clientId);
      await audit('merchant.revoke', clientId, undefined, actor);
    },

    /** The one webhook-URL rule for the CLI and the API (https, or http to loopback unless allowed). */
    async setWebhook(clientId: string, url: string | null, actor: Actor = 'cli'): Promise<Merchant> {
      await row(clientId);
      const webhookUrl = validUrl(url);
      await d.db.updateTable('merchants').set({ webhook_url: webhookUrl, updated_at: d.clock.now() }).where('id', '=', clientId).execute();
      forget(clientId);
      await audit('merchant.set-webhook', clientId, { webhook_url: webhookUrl }, actor);
      return toMerchant(await row(clientId));
    },

    /** New webhook secret; the previous one also signs for the grace period so receivers can switch over. */
    async rotateWebhookSecret(clientId: string, actor: Actor = 'cli'): Promise<{ client_id: string; webhook_secret: string; previous_valid_until: string }> {
      const keys = await d.keys.get();
      const r = await row(clientId);
      const whsec = newWebhookSecret();
      const now = d.clock.now();
      const until = now + d.rotationGraceSeconds * 1000;
      await d.db
        .updateTable('merchants')
        .set({
          webhook_secret_sealed: keys.seal(whsec, d.random),
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
      const keys = await d.keys.get();
      const r = await row(clientId);
      return { url: r.webhook_url, secret_hint: `whsec_…${keys.unseal(r.webhook_secret_sealed).slice(-4)}` };
    },

    /**
     * Resolves request credentials to an active merchant, or throws AUTH_INVALID_SECRET (one
     * message for every cause). Synchronous when the cache has already verified this very
     * secret (nearly every API request): the request then never waits on a promise.
     */
    authenticate(clientId: string, secret: string): Awaitable<Merchant> {
      // A key of the other mode can never be valid here; saying so (the prefix is public)
      // saves an integrator from hunting for a typo.
      const wrongMode = d.livemode ? secret.startsWith('sk_test_') : secret.startsWith('sk_live_');
      if (wrongMode) {
        throw new PaydError(
          'AUTH_INVALID_SECRET',
          d.livemode
            ? 'this is a sandbox key (sk_test_…) and this daemon is live: use the live key (sk_live_…), or send sandbox requests to the sandbox daemon (payd demo / payd serve --sandbox)'
            : 'this is a live key (sk_live_…) and this daemon is the sandbox: use the sandbox key (sk_test_…), or send live requests to the live daemon',
        );
      }
      if (!UUID_V4.test(clientId)) throw invalid();
      const id = clientId.toLowerCase();
      const now = d.clock.now();
      const hit = authCache.get(id);
      // The common case: the same secret as the last verified one, while the entry is fresh.
      if (hit && hit.until > now && hit.verified !== null && hit.verifiedUntil > now && sameSecret(secret, hit.verified)) return hit.merchant;
      return verify(id, secret, now, hit);
    },

    /** Signing secrets for a delivery: the current one, plus the previous one during a rotation. */
    async signingSecrets(clientId: string): Promise<string[]> {
      const keys = await d.keys.get();
      const r = await row(clientId);
      const secrets = [keys.unseal(r.webhook_secret_sealed)];
      if (r.webhook_secret_prev_sealed && (r.webhook_secret_prev_until ?? 0) > d.clock.now()) secrets.push(keys.unseal(r.webhook_secret_prev_sealed));
      return secrets;
    },
  };
}

export type MerchantService = ReturnType<typeof createMerchantService>;
