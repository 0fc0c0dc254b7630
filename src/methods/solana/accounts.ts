import { PublicKey, type Commitment, type Connection } from '@solana/web3.js';

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
  'TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb', // Token-2022 (TOKEN_2022_PROGRAM_ID, declared below)
  ASSOCIATED_TOKEN_PROGRAM_ID.toBase58(),
  'ComputeBudget111111111111111111111111111111',
  'MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr',
  'Memo1UhkJRfHyvLMcVucJwxXeuD728EqVDDwQDxFMNo',
  'AddressLookupTab1e1111111111111111111111111',
]);

/** Token-2022: same instructions and balance rows, but its own program id in every ATA seed. */
export const TOKEN_2022_PROGRAM_ID = new PublicKey('TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb');

/** The token programs a mint may be owned by. */
export const TOKEN_PROGRAMS: ReadonlySet<string> = new Set([TOKEN_PROGRAM_ID.toBase58(), TOKEN_2022_PROGRAM_ID.toBase58()]);

/**
 * The wallet's associated token account for `mint` (what wallets pay tokens into).
 * The seeds name the program that owns the mint, so a Token-2022 mint has another ATA.
 */
export function associatedTokenAddress(wallet: string, mint: string, tokenProgram: string = TOKEN_PROGRAM_ID.toBase58()): string {
  const [ata] = PublicKey.findProgramAddressSync(
    [new PublicKey(wallet).toBuffer(), new PublicKey(tokenProgram).toBuffer(), new PublicKey(mint).toBuffer()],
    ASSOCIATED_TOKEN_PROGRAM_ID,
  );
  return ata.toBase58();
}

/** The configured mint is not a token mint this cluster knows: a configuration error. */
export class MintError extends Error {
  override name = 'MintError';
}

/** The program that owns `mint` (its account's owner): classic Token or Token-2022. */
export async function mintProgram(conn: Connection, mint: string, commitment: Commitment): Promise<string> {
  const info = await conn.getAccountInfo(new PublicKey(mint), commitment);
  if (!info) throw new MintError(`mint ${mint} does not exist on this cluster`);
  const owner = info.owner.toBase58();
  if (!TOKEN_PROGRAMS.has(owner)) throw new MintError(`mint ${mint} is owned by ${owner}, not by the SPL Token or Token-2022 program`);
  return owner;
}
