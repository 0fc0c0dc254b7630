import { createCipheriv, createDecipheriv, createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import type { Random } from '../domain/ports.ts';

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

/** A configured master key string, or the key file beside the database (created 0600 on first use). */
export function loadMasterKey(configured: string | undefined, keyFile: string, random: Random): Uint8Array {
  if (configured) return createHash('sha256').update(configured).digest();
  if (!existsSync(keyFile)) {
    writeFileSync(keyFile, Buffer.from(random.bytes(32)).toString('base64') + '\n', { mode: 0o600, flag: 'wx' });
  }
  chmodSync(keyFile, 0o600);
  const key = Buffer.from(readFileSync(keyFile, 'utf8').trim(), 'base64');
  if (key.length !== 32) throw new Error(`master key file ${keyFile} is damaged: expected 32 bytes of base64`);
  return key;
}
