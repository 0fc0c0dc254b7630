import { createHash } from 'node:crypto';

/**
 * Base58 (Bitcoin alphabet) and TRON's base58check addresses, so validating an address or
 * minting a Solana Pay reference does not load tronweb or @solana/web3.js (together ~75 MB
 * of RSS and half a second of start-up) in processes that never talk to a chain.
 */
const ALPHABET = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';
const INDEX = new Int8Array(128).fill(-1);
for (let i = 0; i < ALPHABET.length; i++) INDEX[ALPHABET.charCodeAt(i)] = i;

export function base58Encode(bytes: Uint8Array): string {
  let zeros = 0;
  while (zeros < bytes.length && bytes[zeros] === 0) zeros++;
  // Base-58 digits, least significant first.
  const digits: number[] = [];
  for (let i = zeros; i < bytes.length; i++) {
    let carry = bytes[i];
    for (let j = 0; j < digits.length; j++) {
      carry += digits[j] << 8;
      digits[j] = carry % 58;
      carry = (carry / 58) | 0;
    }
    while (carry > 0) {
      digits.push(carry % 58);
      carry = (carry / 58) | 0;
    }
  }
  let out = '1'.repeat(zeros);
  for (let i = digits.length - 1; i >= 0; i--) out += ALPHABET[digits[i]];
  return out;
}

/** The bytes of a base58 string, or undefined when it holds a character outside the alphabet. */
export function base58Decode(text: string): Uint8Array | undefined {
  let zeros = 0;
  while (zeros < text.length && text[zeros] === '1') zeros++;
  const bytes: number[] = []; // least significant first
  for (let i = zeros; i < text.length; i++) {
    const c = text.charCodeAt(i);
    const v = c < 128 ? INDEX[c] : -1;
    if (v < 0) return undefined;
    let carry = v;
    for (let j = 0; j < bytes.length; j++) {
      carry += bytes[j] * 58;
      bytes[j] = carry & 0xff;
      carry >>= 8;
    }
    while (carry > 0) {
      bytes.push(carry & 0xff);
      carry >>= 8;
    }
  }
  const out = new Uint8Array(zeros + bytes.length);
  for (let i = 0; i < bytes.length; i++) out[out.length - 1 - i] = bytes[i];
  return out;
}

const checksum = (payload: Uint8Array) => createHash('sha256').update(createHash('sha256').update(payload).digest()).digest().subarray(0, 4);

/** TRON mainnet address (0x41 + 20 bytes) as base58check "T…". */
export function tronAddressFromHex(hex: string): string {
  const payload = Buffer.from(hex, 'hex');
  if (payload.length !== 21 || payload[0] !== 0x41) throw new RangeError('a TRON address is 0x41 followed by 20 bytes');
  return base58Encode(Buffer.concat([payload, checksum(payload)]));
}

/** Whether `s` is a base58check TRON address: 25 bytes, prefix 0x41, valid double-SHA-256 checksum. */
export function isTronBase58(s: string): boolean {
  const raw = base58Decode(s);
  if (!raw || raw.length !== 25 || raw[0] !== 0x41) return false;
  return Buffer.from(checksum(raw.subarray(0, 21))).equals(raw.subarray(21));
}

/** Whether `s` is the canonical base58 text of 32 bytes (a Solana public key). */
export function isBase58Key32(s: string): boolean {
  const raw = base58Decode(s);
  return raw !== undefined && raw.length === 32 && base58Encode(raw) === s;
}
