import { createHash } from 'node:crypto';
import { base58Encode, tronAddressFromHex } from '../../domain/base58.ts';
import type { Method } from '../../domain/methods.ts';

const seed = (label: string) => createHash('sha256').update(`payd sandbox ${label}`).digest();

/** Fixed, well-formed receiving addresses for the sandbox (no one holds their keys). */
export function sandboxReceivers(): Record<Method, string> {
  return {
    UPI: 'sandbox.shop@paydsandbox',
    USDT_TRC20: tronAddressFromHex('41' + seed('tron').subarray(0, 20).toString('hex')),
    USDT_SOL: base58Encode(seed('solana')),
    SOL: base58Encode(seed('solana')),
  };
}

/** A realistic-looking transaction reference for a simulated payment. */
export function sandboxTxRef(method: Method, bytes: Uint8Array): string {
  const hex = Buffer.from(bytes).toString('hex');
  switch (method) {
    case 'UPI':
      return String(BigInt('0x' + hex.slice(0, 15)) % 10n ** 12n).padStart(12, '0');
    case 'USDT_TRC20':
      return hex.slice(0, 64).padEnd(64, '0');
    default:
      return base58Encode(bytes.subarray(0, 32)) + base58Encode(bytes.subarray(32, 64));
  }
}
