import { PublicKey } from '@solana/web3.js';
import { TronWeb } from 'tronweb';

/** TRON base58check address (T…, 34 chars, valid checksum). */
export const isTronAddress = (s: string): boolean => /^T[1-9A-HJ-NP-Za-km-z]{33}$/.test(s) && TronWeb.isAddress(s);

/** A Solana public key in base58 (32 bytes). */
export function isSolanaAddress(s: string): boolean {
  if (!/^[1-9A-HJ-NP-Za-km-z]{32,44}$/.test(s)) return false;
  try {
    return new PublicKey(s).toBase58() === s;
  } catch {
    return false;
  }
}

/** UPI virtual payment address: handle@psp (NPCI allows letters, digits, '.', '-', '_'). */
export const isVpa = (s: string): boolean => /^[A-Za-z0-9][A-Za-z0-9._-]{1,255}@[A-Za-z][A-Za-z0-9]{1,63}$/.test(s);
