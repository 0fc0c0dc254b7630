/**
 * Builders for jsonParsed `getTransaction` results, shaped like Solana's documented
 * responses (https://solana.com/docs/rpc/http/gettransaction): { slot, blockTime,
 * meta: { err, fee, preBalances, postBalances, preTokenBalances, postTokenBalances,
 * innerInstructions, logMessages, … }, transaction: { signatures, message: { accountKeys:
 * [{ pubkey, signer, writable, source }], instructions, recentBlockhash } }, version }.
 */
import { randomBytes } from 'node:crypto';
import { Keypair } from '@solana/web3.js';
import { associatedTokenAddress } from '../../src/methods/solana/accounts.ts';

export const SYSTEM_PROGRAM = '11111111111111111111111111111111';
export const TOKEN_PROGRAM = 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA';
export const ATA_PROGRAM = 'ATokenGPvbdGVxr1b2hvZbsiqW5xWH25efTNsLJA8knL';
export const USDT_MINT = 'Es9vMFrzaCERmJfrF4H2FYD4KCoNkY11McCe8BenwNYB';
export const USDC_MINT = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v';
const RENT_EXEMPT_TOKEN_ACCOUNT = 2_039_280;

export const newKey = (): string => Keypair.generate().publicKey.toBase58();

const ALPHABET = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';
/** A base58 64-byte signature, as the RPC prints them. */
export function newSignature(): string {
  let n = BigInt('0x' + randomBytes(64).toString('hex'));
  let s = '';
  while (n > 0n) {
    s = ALPHABET[Number(n % 58n)] + s;
    n /= 58n;
  }
  return s;
}

type Version = 'legacy' | 0;
export interface AccountKey {
  pubkey: string;
  signer: boolean;
  writable: boolean;
  source: 'transaction' | 'lookupTable';
}
export interface TokenBalance {
  accountIndex: number;
  mint: string;
  owner: string;
  programId: string;
  uiTokenAmount: { amount: string; decimals: number; uiAmount: number | null; uiAmountString: string };
}
/** A getTransaction result minus slot, which the fake RPC assigns when the tx lands. */
export interface BuiltTx {
  signature: string;
  blockTime: number | null;
  meta: Record<string, unknown> & { err: unknown; preBalances: number[]; postBalances: number[]; preTokenBalances: TokenBalance[]; postTokenBalances: TokenBalance[] };
  transaction: { signatures: string[]; message: Record<string, unknown> & { accountKeys: AccountKey[]; instructions: unknown[] } };
  version: Version;
}

const key = (pubkey: string, signer: boolean, writable: boolean, source: AccountKey['source'] = 'transaction'): AccountKey => ({ pubkey, signer, writable, source });

function uiAmount(raw: bigint, decimals: number): TokenBalance['uiTokenAmount'] {
  const digits = raw.toString().padStart(decimals + 1, '0');
  const text = `${digits.slice(0, -decimals)}.${digits.slice(-decimals)}`.replace(/\.?0+$/, '') || '0';
  return { amount: raw.toString(), decimals, uiAmount: Number(text), uiAmountString: text };
}

interface Common {
  reference?: string;
  /** v0 only: load the reference from an address lookup table instead of the static keys. */
  referenceFromLookupTable?: boolean;
  err?: unknown;
  version?: Version;
  blockTime?: number | null;
  fee?: number;
}

/** Assembles the tx; a failed one keeps its balances except the fee (nothing moved). */
function finish(o: Common, accountKeys: AccountKey[], instructions: unknown[], pre: number[], post: number[], preTok: TokenBalance[], postTok: TokenBalance[], inner: unknown[] = []): BuiltTx {
  const signature = newSignature();
  const failed = o.err != null;
  const fee = o.fee ?? 5000;
  if (failed) {
    post = [...pre];
    postTok = preTok;
  }
  post[0] -= fee;
  const lookup = o.version === 0 && o.reference && o.referenceFromLookupTable;
  const message: BuiltTx['transaction']['message'] = { accountKeys, instructions, recentBlockhash: newKey() };
  if (o.version === 0) message.addressTableLookups = lookup ? [{ accountKey: newKey(), writableIndexes: [], readonlyIndexes: [0] }] : [];
  return {
    signature,
    blockTime: o.blockTime === undefined ? Math.floor(Date.now() / 1000) : o.blockTime,
    meta: {
      err: o.err ?? null,
      status: failed ? { Err: o.err } : { Ok: null },
      fee,
      preBalances: pre,
      postBalances: post,
      preTokenBalances: preTok,
      postTokenBalances: postTok,
      innerInstructions: inner,
      logMessages: failed ? ['Program failed to complete'] : [],
      rewards: [],
      computeUnitsConsumed: 4644,
      ...(o.version === 0 ? { loadedAddresses: { writable: [], readonly: lookup ? [o.reference] : [] } } : {}),
    },
    transaction: { signatures: [signature], message },
    version: o.version ?? 'legacy',
  };
}

/** Adds the Solana Pay reference the way wallets do: a read-only non-signer key (static, or from a lookup table for v0). */
function withReference(o: Common, statics: AccountKey[], programs: AccountKey[]): AccountKey[] {
  if (!o.reference) return [...statics, ...programs];
  if (o.version === 0 && o.referenceFromLookupTable) return [...statics, ...programs, key(o.reference, false, false, 'lookupTable')];
  return [...statics, key(o.reference, false, false), ...programs];
}

export function solTransfer(o: Common & { from: string; to: string; lamports: bigint | number }): BuiltTx {
  const lamports = Number(o.lamports);
  const keys = withReference(o, [key(o.from, true, true), key(o.to, false, true)], [key(SYSTEM_PROGRAM, false, false)]);
  const pre = keys.map((_k, i) => (i === 0 ? 10_000_000_000 : i === 1 ? 1_000_000_000 : 1));
  const post = [...pre];
  post[0] -= lamports;
  post[1] += lamports;
  const ix = { program: 'system', programId: SYSTEM_PROGRAM, parsed: { type: 'transfer', info: { source: o.from, destination: o.to, lamports } }, stackHeight: null };
  return finish(o, keys, [ix], pre, post, [], []);
}

export interface TokenTransferOptions extends Common {
  payer: string;
  wallet: string;
  mint?: string;
  amount: bigint;
  decimals?: number;
  /** The wallet's ATA does not exist yet: the payer creates it in the same transaction. */
  createAta?: boolean;
  /** Pay into this token account of the wallet instead of its ATA. */
  destination?: string;
  destinationBefore?: bigint;
}

export function tokenTransfer(o: TokenTransferOptions): BuiltTx {
  const mint = o.mint ?? USDT_MINT;
  const decimals = o.decimals ?? 6;
  const source = associatedTokenAddress(o.payer, mint);
  const dest = o.destination ?? associatedTokenAddress(o.wallet, mint);
  const statics = [key(o.payer, true, true), key(source, false, true), key(dest, false, true)];
  const programs = o.createAta
    ? [key(o.wallet, false, false), key(mint, false, false), key(SYSTEM_PROGRAM, false, false), key(TOKEN_PROGRAM, false, false), key(ATA_PROGRAM, false, false)]
    : [key(mint, false, false), key(TOKEN_PROGRAM, false, false)];
  const keys = withReference(o, statics, programs);
  const pre = keys.map((_, i) => (i === 0 ? 5_000_000_000 : i === 2 && o.createAta ? 0 : i <= 2 ? RENT_EXEMPT_TOKEN_ACCOUNT : 1));
  const post = [...pre];
  if (o.createAta) {
    post[0] -= RENT_EXEMPT_TOKEN_ACCOUNT;
    post[2] += RENT_EXEMPT_TOKEN_ACCOUNT;
  }
  const srcBefore = o.amount + 1_000_000_000n;
  const destBefore = o.destinationBefore ?? 0n;
  const bal = (accountIndex: number, owner: string, raw: bigint): TokenBalance => ({ accountIndex, mint, owner, programId: TOKEN_PROGRAM, uiTokenAmount: uiAmount(raw, decimals) });
  const preTok = [bal(1, o.payer, srcBefore), ...(o.createAta ? [] : [bal(2, o.wallet, destBefore)])];
  const postTok = [bal(1, o.payer, srcBefore - o.amount), bal(2, o.wallet, destBefore + o.amount)];
  const transfer = {
    program: 'spl-token',
    programId: TOKEN_PROGRAM,
    parsed: { type: 'transferChecked', info: { source, mint, destination: dest, authority: o.payer, tokenAmount: uiAmount(o.amount, decimals) } },
    stackHeight: null,
  };
  const create = {
    program: 'spl-associated-token-account',
    programId: ATA_PROGRAM,
    parsed: { type: 'createIdempotent', info: { source: o.payer, account: dest, wallet: o.wallet, mint, systemProgram: SYSTEM_PROGRAM, tokenProgram: TOKEN_PROGRAM } },
    stackHeight: null,
  };
  const inner = o.createAta
    ? [{ index: 0, instructions: [{ program: 'spl-token', programId: TOKEN_PROGRAM, parsed: { type: 'initializeAccount3', info: { account: dest, mint, owner: o.wallet } }, stackHeight: 2 }] }]
    : [];
  return finish(o, keys, o.createAta ? [create, transfer] : [transfer], pre, post, preTok, postTok, inner);
}
