import { PublicKey } from '@solana/web3.js';

/** SPL Token program (classic, not Token-2022); USDT on Solana lives here. */
export const TOKEN_PROGRAM_ID = new PublicKey('TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA');
/** Associated Token Account program: derives a wallet's canonical token account per mint. */
export const ASSOCIATED_TOKEN_PROGRAM_ID = new PublicKey('ATokenGPvbdGVxr1b2hvZbsiqW5xWH25efTNsLJA8knL');

/**
 * Programs that appear as read-only non-signer keys but can never be a Solana Pay
 * reference. Instruction program ids are excluded per transaction as well; this list
 * covers programs and sysvars that are passed as plain accounts.
 */
export const WELL_KNOWN_PROGRAMS: ReadonlySet<string> = new Set([
  '11111111111111111111111111111111', // System
  TOKEN_PROGRAM_ID.toBase58(),
  'TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb', // Token-2022
  ASSOCIATED_TOKEN_PROGRAM_ID.toBase58(),
  'ComputeBudget111111111111111111111111111111',
  'MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr',
  'Memo1UhkJRfHyvLMcVucJwxXeuD728EqVDDwQDxFMNo',
  'AddressLookupTab1e1111111111111111111111111',
]);

/** The wallet's associated token account for `mint` (what wallets pay USDT into). */
export function associatedTokenAddress(wallet: string, mint: string): string {
  const [ata] = PublicKey.findProgramAddressSync(
    [new PublicKey(wallet).toBuffer(), TOKEN_PROGRAM_ID.toBuffer(), new PublicKey(mint).toBuffer()],
    ASSOCIATED_TOKEN_PROGRAM_ID,
  );
  return ata.toBase58();
}
