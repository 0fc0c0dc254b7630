// The tests' DKIM signer (test/helpers/bank-alerts.ts) fails loudly: a signature that does not
// verify is an error, never silently made again or handed to a test as if it were valid.
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { describe, it } from 'node:test';
import { hdfcCredit, signChecked } from '../../../helpers/bank-alerts.ts';
import { zoneResolver } from '../../../helpers/upi-kit.ts';

const DOMAIN = 'hdfcbank.bank.in';
const keyPair = () => generateKeyPairSync('rsa', { modulusLength: 2048 });
const record = (publicKey: ReturnType<typeof keyPair>['publicKey']) => `v=DKIM1; k=rsa; p=${publicKey.export({ type: 'spki', format: 'der' }).toString('base64')}`;

describe('signChecked', () => {
  const signing = keyPair();
  const pem = signing.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
  const key = { signingDomain: DOMAIN, selector: 's1', privateKey: pem };
  const raw = hdfcCredit({ rupees: '1.00', utr: '632612340001', account: '4321' });

  it('returns the signed message when the signature verifies', async () => {
    const out = await signChecked(raw, { ...key, signatureData: [key] }, zoneResolver({ [`s1._domainkey.${DOMAIN}`]: [[record(signing.publicKey)]] }));
    assert.match(out.toString(), /^DKIM-Signature: /);
    assert.ok(out.subarray(out.length - raw.length).equals(raw));
  });

  it('throws when the signature does not verify (here: the zone publishes another key)', async () => {
    const other = keyPair();
    await assert.rejects(
      signChecked(raw, { ...key, signatureData: [key] }, zoneResolver({ [`s1._domainkey.${DOMAIN}`]: [[record(other.publicKey)]] })),
      /test signer: mailauth does not verify its own signature \(fail/,
    );
  });
});
