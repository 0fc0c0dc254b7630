import { timingSafeEqual } from 'node:crypto';
import type { Awaitable } from '../../domain/awaitable.ts';
import type { Db } from '../../db/open.ts';
import type { MerchantsTable } from '../../db/schema.ts';
import { PaydError } from '../../domain/errors.ts';
import { UUID_V4 } from '../../domain/ids.ts';
import type { Clock } from '../../domain/ports.ts';
import type { Keyring, Keys } from '../keys.ts';
import { toMerchant, type Merchant } from './row.ts';

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

/** API credential checks, with their cache. `forget` makes a change in this process take effect at once. */
export function createCredentialCheck(deps: { db: Db; keys: Keyring; clock: Clock; livemode: boolean }) {
  // Saves a SELECT per request; a revoke or rotation from another process (the CLI) takes
  // effect within AUTH_CACHE_MS, in this process at once.
  // `verified`: the secret last presented and verified against this entry, so the same
  // merchant's next requests cost a constant-time comparison instead of an HMAC (until `verifiedUntil`:
  // a previous secret stops at the end of its grace period).
  const authCache = new Map<string, AuthCacheEntry>();
  // One read of a merchant's row at a time: a burst of the same merchant's requests past the
  // cache's expiry shares it instead of each taking a pooled connection (on
  // PostgreSQL those reads queued in front of the burst's creates).
  const reading = new Map<string, Promise<MerchantsTable | undefined>>();
  const readForAuth = (id: string): Promise<MerchantsTable | undefined> => {
    let read = reading.get(id);
    if (!read) {
      read = deps.db.selectFrom('merchants').selectAll().where('id', '=', id).executeTakeFirst();
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
  /** The credential check past the cache's fast path: an HMAC against the cached hashes, or a read of the merchant. */
  async function verify(id: string, secret: string, now: number, hit: AuthCacheEntry | undefined): Promise<Merchant> {
    const keys: Keys = deps.keys.current ?? (await deps.keys.get());
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
    forget,
    /**
     * Resolves request credentials to an active merchant, or throws AUTH_INVALID_SECRET (one
     * message for every cause). Synchronous when the cache has already verified this very
     * secret (nearly every API request): the request then never waits on a promise.
     */
    authenticate(clientId: string, secret: string): Awaitable<Merchant> {
      // A key of the other mode can never be valid here; saying so (the prefix is public)
      // saves an integrator from hunting for a typo.
      const wrongMode = deps.livemode ? secret.startsWith('sk_test_') : secret.startsWith('sk_live_');
      if (wrongMode) {
        throw new PaydError(
          'AUTH_INVALID_SECRET',
          deps.livemode
            ? 'this is a sandbox key (sk_test_…) and this daemon is live: use the live key (sk_live_…), or send sandbox requests to the sandbox daemon (payd demo / payd serve --sandbox)'
            : 'this is a live key (sk_live_…) and this daemon is the sandbox: use the sandbox key (sk_test_…), or send live requests to the live daemon',
        );
      }
      if (!UUID_V4.test(clientId)) throw invalid();
      const id = clientId.toLowerCase();
      const now = deps.clock.now();
      const hit = authCache.get(id);
      // The common case: the same secret as the last verified one, while the entry is fresh.
      if (hit && hit.until > now && hit.verified !== null && hit.verifiedUntil > now && sameSecret(secret, hit.verified)) return hit.merchant;
      return verify(id, secret, now, hit);
    },
  };
}
