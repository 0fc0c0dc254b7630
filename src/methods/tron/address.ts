import { isTronBase58, tronAddressFromHex } from '../../domain/base58.ts';

const BASE58 = /^T[1-9A-HJ-NP-Za-km-z]{33}$/;
const HEX = /^(?:0x)?(41[0-9a-fA-F]{40})$/;

/**
 * A TRON address as base58check ("T…"), or undefined when it is neither base58
 * nor 41-prefixed hex. TronGrid answers in base58 but accepts and may echo hex,
 * so every address is compared in this one form. Base58check is all the source needs
 * from a TRON library, so it does it itself: tronweb alone costs ~50 MB of RSS.
 */
export function toBase58(address: unknown): string | undefined {
  if (typeof address !== 'string') return undefined;
  if (BASE58.test(address)) return isTronBase58(address) ? address : undefined;
  const hex = HEX.exec(address);
  if (!hex) return undefined;
  return tronAddressFromHex(hex[1].toLowerCase());
}
