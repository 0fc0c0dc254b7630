import { createCipheriv, createDecipheriv, createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import type { Secret } from '../config/secret.ts';
import type { Db } from '../db/open.ts';
import { PaydError } from '../domain/errors.ts';
import type { Clock, Random } from '../domain/ports.ts';

/**
 * The server's master key: hashes client secrets (keyed SHA-256: secrets are 32 random
 * bytes, so no slow KDF is needed on the request path) and seals webhook secrets,
 * which must be recoverable to sign with.
 */
export class Keys {
  readonly #hashKey: Buffer;
  readonly #sealKey: Buffer;

  constructor(master: Uint8Array) {
    this.#hashKey = createHmac('sha256', master).update('payd client-secret hash v1').digest();
    this.#sealKey = createHmac('sha256', master).update('payd webhook-secret seal v1').digest();
  }

  hashSecret(secret: string): string {
    return createHmac('sha256', this.#hashKey).update(secret).digest('hex');
  }

  /** Constant-time comparison of a presented secret with a stored hash. */
  verifySecret(secret: string, storedHash: string): boolean {
    const a = Buffer.from(this.hashSecret(secret), 'hex');
    const b = Buffer.from(storedHash, 'hex');
    return a.length === b.length && timingSafeEqual(a, b);
  }

  seal(plain: string, random: Random): string {
    const iv = random.bytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.#sealKey, iv);
    const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return `v1.${Buffer.from(iv).toString('base64url')}.${body.toString('base64url')}.${cipher.getAuthTag().toString('base64url')}`;
  }

  unseal(sealed: string): string {
    const [v, iv, body, tag] = sealed.split('.');
    if (v !== 'v1' || !iv || body === undefined || !tag) throw new Error('sealed value has an unknown format');
    const decipher = createDecipheriv('aes-256-gcm', this.#sealKey, Buffer.from(iv, 'base64url'));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString('utf8');
  }
}

/**
 * The one derivation of the master key from its text, wherever the text comes from (a
 * configured secret or the key file): 32 bytes written as base64 (what the key file and
 * `head -c 32 /dev/urandom | base64` hold) are used as they are; any other text is hashed.
 * So the key file's content works unchanged as a configured key, and the other way round.
 */
export function deriveMasterKey(text: string): Buffer {
  const t = text.trim();
  if (!t) throw new PaydError('CONFIG_INVALID', 'the master key is empty');
  if (/^[A-Za-z0-9+/]{43}=$/.test(t)) return Buffer.from(t, 'base64');
  return createHash('sha256').update(t).digest();
}

/** A short public name of a master key, stored in the database to catch a process with another key. */
export const masterKeyFingerprint = (master: Uint8Array): string => createHmac('sha256', master).update('payd master key fingerprint v1').digest('hex').slice(0, 32);

const FINGERPRINT = 'master_key_fingerprint';
const DERIVATION = 'master_key_derivation';
/** The first version's derivation of a configured key: SHA-256 of its text, whatever it holds. */
const LEGACY = 'sha256-text';

const deriveFor = (text: string, derivation: string | undefined): Buffer =>
  derivation === LEGACY ? createHash('sha256').update(text).digest() : deriveMasterKey(text);

function opens(master: Uint8Array, sealed: string): boolean {
  try {
    new Keys(master).unseal(sealed);
    return true;
  } catch {
    return false;
  }
}

export interface KeyringDeps {
  db: Db;
  /** server.masterKey, read only when a command needs the key. */
  configured: Secret | undefined;
  /** The key file used when none is configured (beside the database, created 0600 at first use). */
  keyFile: string;
  random: Random;
  clock: Clock;
}

/**
 * The master key, resolved at first use: read (or, for a new database, created), then
 * checked against the fingerprint the database stores. A process holding another key
 * refuses before it hashes, seals or unseals anything.
 */
export function createKeyring(deps: KeyringDeps) {
  let keys: Keys | undefined;
  let loading: Promise<Keys> | undefined;

  async function load(): Promise<Keys> {
    const stored = await deps.db.selectFrom('settings').select('value').where('key', '=', FINGERPRINT).executeTakeFirst();
    let source: string;
    let text: string;
    if (deps.configured) {
      source = 'server.masterKey';
      text = deps.configured.reveal();
    } else {
      source = `key file ${deps.keyFile}`;
      if (!existsSync(deps.keyFile)) {
        if (stored) {
          throw new PaydError(
            'CONFIG_INVALID',
            `the master key file ${deps.keyFile} is missing, but this database was set up with a master key (fingerprint ${stored.value}); nothing was changed. ` +
              'Restore the key file, or set server.masterKey to the key this database was set up with.',
          );
        }
        writeFileSync(deps.keyFile, Buffer.from(deps.random.bytes(32)).toString('base64') + '\n', { mode: 0o600, flag: 'wx' });
      }
      chmodSync(deps.keyFile, 0o600);
      text = readFileSync(deps.keyFile, 'utf8');
    }
    const master = stored ? deriveFor(text, await derivation()) : await firstUseKey(text);
    const fingerprint = masterKeyFingerprint(master);
    if (!stored) {
      // First use: remember which key this database belongs to (a racing process may win; then compare with its).
      await deps.db.insertInto('settings').values({ key: FINGERPRINT, value: fingerprint, updated_at: deps.clock.now() }).onConflict((oc) => oc.column('key').doNothing()).execute();
    }
    const expected = stored?.value ?? (await deps.db.selectFrom('settings').select('value').where('key', '=', FINGERPRINT).executeTakeFirstOrThrow()).value;
    if (expected !== fingerprint) {
      throw new PaydError(
        'CONFIG_INVALID',
        `the master key from ${source} (fingerprint ${fingerprint}) is not the one this database was set up with (fingerprint ${expected}); nothing was changed. ` +
          'With another key, client secrets would not verify and webhook secrets would not unseal. Use the original master key.',
      );
    }
    return new Keys(master);
  }

  const derivation = async (): Promise<string | undefined> =>
    (await deps.db.selectFrom('settings').select('value').where('key', '=', DERIVATION).executeTakeFirst())?.value;

  /**
   * A database set up before the fingerprint existed hashed every configured key, also a
   * base64 one. If its sealed secrets open only under that old derivation, keep using it
   * (remembered in settings) rather than lock the shop out of its own merchants.
   */
  async function firstUseKey(text: string): Promise<Buffer> {
    const key = deriveMasterKey(text);
    const sample = await deps.db.selectFrom('merchants').select('webhook_secret_sealed').limit(1).executeTakeFirst();
    if (!sample || opens(key, sample.webhook_secret_sealed)) return key;
    const legacy = deriveFor(text, LEGACY);
    if (!opens(legacy, sample.webhook_secret_sealed)) {
      throw new PaydError('CONFIG_INVALID', 'the master key does not open the webhook secrets stored in this database: it is not the key this database was set up with; nothing was changed. Use the original master key.');
    }
    await deps.db.insertInto('settings').values({ key: DERIVATION, value: LEGACY, updated_at: deps.clock.now() }).onConflict((oc) => oc.column('key').doNothing()).execute();
    return legacy;
  }

  return {
    /** The keys if already resolved (the request path avoids an await). */
    get current(): Keys | undefined {
      return keys;
    },
    async get(): Promise<Keys> {
      if (keys) return keys;
      loading ??= load().then(
        (k) => (keys = k),
        (err) => {
          loading = undefined;
          throw err;
        },
      );
      return loading;
    },
  };
}

export type Keyring = ReturnType<typeof createKeyring>;
