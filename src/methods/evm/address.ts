/**
 * EVM addresses as config and logs spell them: 0x and 40 hex digits. Lower or upper case
 * alone carries no checksum; mixed case is an EIP-55 checksum and must be right (a wrong one
 * is a typo). payd compares addresses in lower case.
 */
import { keccak_256 } from '@noble/hashes/sha3';

const HEX40 = /^0x[0-9a-fA-F]{40}$/;

/** The EIP-55 spelling of an address (any case in, mixed case out). */
export function checksumAddress(address: string): string {
  const hex = address.slice(2).toLowerCase();
  const hash = Buffer.from(keccak_256(new TextEncoder().encode(hex))).toString('hex');
  let out = '0x';
  for (let i = 0; i < 40; i++) out += parseInt(hash[i]!, 16) >= 8 ? hex[i]!.toUpperCase() : hex[i]!;
  return out;
}

/** 0x + 40 hex digits, and, when mixed case, a correct EIP-55 checksum. */
export function isEvmAddress(s: string): boolean {
  if (!HEX40.test(s)) return false;
  const body = s.slice(2);
  if (body === body.toLowerCase() || body === body.toUpperCase()) return true;
  return checksumAddress(s) === s;
}

/** The spelling payd stores and compares: lower case. */
export const normalizeEvmAddress = (s: string): string => s.toLowerCase();

/** A 32-byte log topic holding an address (left-padded). */
export const addressTopic = (address: string): string => '0x' + address.slice(2).toLowerCase().padStart(64, '0');

/** The address in a 32-byte topic, lower case. */
export const topicAddress = (topic: string): string => '0x' + topic.slice(-40).toLowerCase();
