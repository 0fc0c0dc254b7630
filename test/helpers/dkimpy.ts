// Mail signed by dkimpy (Debian's python3-dkim), not by mailauth: a test of payd's DKIM
// verification against a signer that shares none of its code. The key is made here and published
// in `zone` with a p=reject DMARC record, for a DNS stub (test/helpers/dns-stub.ts) to serve.
import { execFile } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { fileURLToPath } from 'node:url';

const SCRIPT = fileURLToPath(new URL('./dkimpy-sign.py', import.meta.url));
// Debian's interpreter: python3-dkim installs for it, not for a python3 earlier on PATH (pyenv).
const PYTHON = '/usr/bin/python3';

export type Canonicalization = 'relaxed/relaxed' | 'simple/simple' | 'relaxed/simple' | 'simple/relaxed';

export interface DkimpySpec {
  domain: string;
  selector: string;
  canonicalization: Canonicalization;
  /** Header names to sign, as dkimpy takes them. */
  headers: string[];
}

export function dkimpySigner() {
  const zone: Record<string, string[][]> = {};
  const keys = new Map<string, { key: string; record: string }>();
  const keyFor = (domain: string, selector: string) => {
    const id = `${selector}._domainkey.${domain}`;
    let k = keys.get(id);
    if (!k) {
      const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
      // dkimpy reads RFC 8017 RSAPrivateKey (PKCS#1) PEM.
      k = {
        key: privateKey.export({ type: 'pkcs1', format: 'pem' }).toString(),
        record: `v=DKIM1; k=rsa; p=${publicKey.export({ type: 'spki', format: 'der' }).toString('base64')}`,
      };
      keys.set(id, k);
      zone[id] = [[k.record]];
      zone[`_dmarc.${domain}`] ??= [['v=DMARC1; p=reject']];
    }
    return k;
  };
  const sign = (raw: Buffer, s: DkimpySpec): Promise<Buffer> => {
    const { key, record } = keyFor(s.domain, s.selector);
    const request = JSON.stringify({ message: raw.toString('base64'), domain: s.domain, selector: s.selector, key, record, canonicalization: s.canonicalization, headers: s.headers });
    return new Promise((resolve, reject) => {
      const child = execFile(PYTHON, [SCRIPT], { encoding: 'buffer', timeout: 60_000, maxBuffer: 16 * 1024 * 1024 }, (err, stdout, stderr) => {
        if (err) reject(new Error(`dkimpy signing failed: ${err.message} ${stderr.toString()}`));
        else resolve(stdout);
      });
      child.stdin!.end(request);
    });
  };
  return { zone, sign };
}
