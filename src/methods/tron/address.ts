import { TronWeb } from 'tronweb';

const BASE58 = /^T[1-9A-HJ-NP-Za-km-z]{33}$/;
const HEX = /^(?:0x)?(41[0-9a-fA-F]{40})$/;

/**
 * A TRON address as base58check ("T…"), or undefined when it is neither base58
 * nor 41-prefixed hex. TronGrid answers in base58 but accepts and may echo hex,
 * so every address is compared in this one form.
 */
export function toBase58(address: unknown): string | undefined {
  if (typeof address !== 'string') return undefined;
  if (BASE58.test(address)) return TronWeb.isAddress(address) ? address : undefined;
  const hex = HEX.exec(address);
  if (!hex) return undefined;
  const b58 = TronWeb.address.fromHex(hex[1].toLowerCase());
  return typeof b58 === 'string' && BASE58.test(b58) ? b58 : undefined;
}
