import { isBase58Key32, isTronBase58 } from '../domain/base58.ts';

/** TRON base58check address (T…, 34 chars, valid checksum). */
export const isTronAddress = (s: string): boolean => /^T[1-9A-HJ-NP-Za-km-z]{33}$/.test(s) && isTronBase58(s);

/** A Solana public key in base58 (32 bytes). */
export const isSolanaAddress = (s: string): boolean => /^[1-9A-HJ-NP-Za-km-z]{32,44}$/.test(s) && isBase58Key32(s);

/** UPI virtual payment address: handle@psp (NPCI allows letters, digits, '.', '-', '_'). */
export const isVpa = (s: string): boolean => /^[A-Za-z0-9][A-Za-z0-9._-]{1,255}@[A-Za-z][A-Za-z0-9]{1,63}$/.test(s);
