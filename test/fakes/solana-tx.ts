/**
 * Builders for jsonParsed `getTransaction` results, shaped like recorded mainnet
 * responses (facts and provenance: test/fixtures/chains/REAL-UPSTREAMS.md §3, copied shapes only):
 * - plain SOL transfer with a fee payer other than the sender: p2p-org/key-app-kit-swift
 *   SendViaLinkDataServiceTests.swift@3ce37c0b `validGetSendSOLTransactionResponse` (§3a);
 * - SPL `transferChecked` into an ATA created in the same tx (no pre balance row),
 *   same file `validGetSendSPLTransactionResponse` (§3b);
 * - v0 with lookup-table keys merged into `accountKeys` (`source: "lookupTable"`) and
 *   no `meta.loadedAddresses` in jsonParsed (index id 29402497615, §3c);
 * - a token transfer carrying Solana Pay references is rendered with
 *   `multisigAuthority` + `signers` (Agave transaction-status parse_token.rs, §3d);
 * - plain `transfer` ({source, destination, amount, authority}) and a transfer made in
 *   an inner instruction (CPI, `stackHeight: 2`) (index id 29402497615, §3g);
 * - Token-2022: `program: "spl-token"`, programId `Tokenz…`, balance rows carry it (§3f);
 * - transaction v1 (SIMD-0385): `"version": 1`, no lookup tables, compute budget in
 *   `message.transactionConfig` (helius.dev/docs rpc/transaction-v1, §3i); its fields
 *   { computeUnitLimit, heapSize, loadedAccountsDataSizeLimit, priorityFee } (each a
 *   number or null) are what web3.js 1.99 requires (TransactionConfigResult in
 *   node_modules/@solana/web3.js/lib/index.cjs.js).
 */
import { randomBytes } from 'node:crypto';
import { Keypair } from '@solana/web3.js';
import { associatedTokenAddress } from '../../src/methods/solana/accounts.ts';

export const SYSTEM_PROGRAM = '11111111111111111111111111111111';
export const TOKEN_PROGRAM = 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA';
export const TOKEN_2022_PROGRAM = 'TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb';
export const ATA_PROGRAM = 'ATokenGPvbdGVxr1b2hvZbsiqW5xWH25efTNsLJA8knL';
export const USDT_MINT = 'Es9vMFrzaCERmJfrF4H2FYD4KCoNkY11McCe8BenwNYB';
export const USDC_MINT = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v';
/** PayPal USD, a Token-2022 mint with 6 decimals. */
export const PYUSD_MINT = '2b1kV6DkPAnxd5ixfnxCpjxmKwqjjaYmCZfHsFu24GXo';
/** A swap / smart-wallet program that moves tokens by CPI (any program id will do). */
export const CPI_PROGRAM = 'JUP6LkbZbjS1jKKwapdHNy74zcZ3tLUZoi5QNyVTaV4';
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

/** 2 stands for a future version no installed client parses. */
export type Version = 'legacy' | 0 | 1 | 2;
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
  /** Several Solana Pay references on one transfer (the spec allows a list). */
  references?: string[];
  /** v0 only: load the reference from an address lookup table instead of the static keys. */
  referenceFromLookupTable?: boolean;
  err?: unknown;
  version?: Version;
  blockTime?: number | null;
  fee?: number;
  /** A relayer pays the fee and signs first; the sender is the second signer (§3a). */
  feePayer?: string;
}

const refsOf = (o: Common): string[] => [...(o.reference ? [o.reference] : []), ...(o.references ?? [])];

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
  const lookup = o.version === 0 && refsOf(o).length > 0 && o.referenceFromLookupTable;
  const message: BuiltTx['transaction']['message'] = { accountKeys, instructions, recentBlockhash: newKey() };
  if (o.version === 0) message.addressTableLookups = lookup ? [{ accountKey: newKey(), writableIndexes: [], readonlyIndexes: refsOf(o).map((_, i) => i) }] : [];
  if (o.version === 1 || o.version === 2) message.transactionConfig = { computeUnitLimit: 200_000, heapSize: null, loadedAccountsDataSizeLimit: null, priorityFee: 1_000 };
  const signatures = [signature, ...accountKeys.slice(1).filter((k) => k.signer).map(() => newSignature())];
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
    },
    transaction: { signatures, message },
    version: o.version ?? 'legacy',
  };
}

/** Signers first: the fee payer (if another party) then the sender. */
function signers(o: Common, sender: string): AccountKey[] {
  return o.feePayer && o.feePayer !== sender ? [key(o.feePayer, true, true), key(sender, true, true)] : [key(sender, true, true)];
}

/** Adds the Solana Pay references the way wallets do: read-only non-signer keys (static, or from a lookup table for v0). */
function withReference(o: Common, statics: AccountKey[], programs: AccountKey[]): AccountKey[] {
  const refs = refsOf(o);
  if (refs.length === 0) return [...statics, ...programs];
  if (o.version === 0 && o.referenceFromLookupTable) return [...statics, ...programs, ...refs.map((r) => key(r, false, false, 'lookupTable'))];
  return [...statics, ...refs.map((r) => key(r, false, false)), ...programs];
}

export function solTransfer(o: Common & { from: string; to: string; lamports: bigint | number }): BuiltTx {
  return solTransfers({ ...o, parts: [{ lamports: o.lamports, references: refsOf(o) }], reference: undefined, references: undefined });
}

/**
 * One transaction with several System transfers from `from` to `to`, each carrying its
 * own references (a customer paying several orders at once, §3h).
 */
export function solTransfers(o: Common & { from: string; to: string; parts: { lamports: bigint | number; references?: string[] }[] }): BuiltTx {
  const all = o.parts.flatMap((p) => p.references ?? []);
  const statics = [...signers(o, o.from), key(o.to, false, true)];
  const keys = withReference({ ...o, references: all }, statics, [key(SYSTEM_PROGRAM, false, false)]);
  const toIx = statics.length - 1;
  const fromIx = toIx - 1;
  const pre = keys.map((_k, i) => (i === fromIx || i === 0 ? 10_000_000_000 : i === toIx ? 1_000_000_000 : 1));
  const post = [...pre];
  const ixs = o.parts.map((p) => {
    const lamports = Number(p.lamports);
    post[fromIx] -= lamports;
    post[toIx] += lamports;
    // The System transfer parser shows only source, destination and lamports; references live in accountKeys (§3d).
    return { program: 'system', programId: SYSTEM_PROGRAM, parsed: { type: 'transfer', info: { source: o.from, destination: o.to, lamports } }, stackHeight: null };
  });
  return finish(o, keys, ixs, pre, post, [], []);
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
  /** `transferChecked` (default) or the plain `transfer` (no mint, no decimals in the parsed info). */
  instruction?: 'transfer' | 'transferChecked';
  /** The transfer is made by another program through CPI: an inner instruction, not a top-level one. */
  viaCpi?: boolean;
  /** Token program owning the mint: classic (default) or Token-2022. */
  tokenProgram?: string;
}

export function tokenTransfer(o: TokenTransferOptions): BuiltTx {
  const mint = o.mint ?? USDT_MINT;
  const decimals = o.decimals ?? 6;
  const program = o.tokenProgram ?? TOKEN_PROGRAM;
  const source = associatedTokenAddress(o.payer, mint, program);
  const dest = o.destination ?? associatedTokenAddress(o.wallet, mint, program);
  const head = signers(o, o.payer);
  const [srcIx, destIx] = [head.length, head.length + 1];
  const statics = [...head, key(source, false, true), key(dest, false, true)];
  const programs = [
    ...(o.createAta ? [key(o.wallet, false, false), key(mint, false, false), key(SYSTEM_PROGRAM, false, false), key(program, false, false), key(ATA_PROGRAM, false, false)] : [key(mint, false, false), key(program, false, false)]),
    ...(o.viaCpi ? [key(CPI_PROGRAM, false, false)] : []),
  ];
  const keys = withReference(o, statics, programs);
  const pre = keys.map((_, i) => (i < head.length ? 5_000_000_000 : i === destIx && o.createAta ? 0 : i <= destIx ? RENT_EXEMPT_TOKEN_ACCOUNT : 1));
  const post = [...pre];
  if (o.createAta) {
    post[0] -= RENT_EXEMPT_TOKEN_ACCOUNT;
    post[destIx] += RENT_EXEMPT_TOKEN_ACCOUNT;
  }
  const srcBefore = o.amount + 1_000_000_000n;
  const destBefore = o.destinationBefore ?? 0n;
  const bal = (accountIndex: number, owner: string, raw: bigint): TokenBalance => ({ accountIndex, mint, owner, programId: program, uiTokenAmount: uiAmount(raw, decimals) });
  const preTok = [bal(srcIx, o.payer, srcBefore), ...(o.createAta ? [] : [bal(destIx, o.wallet, destBefore)])];
  const postTok = [bal(srcIx, o.payer, srcBefore - o.amount), bal(destIx, o.wallet, destBefore + o.amount)];
  const refs = refsOf(o);
  // With extra accounts after the authority, the parser names it multisigAuthority and lists them as signers (§3d).
  const auth = refs.length > 0 ? { multisigAuthority: o.payer, signers: refs } : { authority: o.payer };
  const info =
    o.instruction === 'transfer'
      ? { source, destination: dest, amount: o.amount.toString(), ...auth }
      : { source, mint, destination: dest, tokenAmount: uiAmount(o.amount, decimals), ...auth };
  const transfer = { program: 'spl-token', programId: program, parsed: { type: o.instruction ?? 'transferChecked', info }, stackHeight: o.viaCpi ? 2 : null };
  const create = {
    program: 'spl-associated-token-account',
    programId: ATA_PROGRAM,
    parsed: { type: 'createIdempotent', info: { source: o.payer, account: dest, wallet: o.wallet, mint, systemProgram: SYSTEM_PROGRAM, tokenProgram: program } },
    stackHeight: null,
  };
  const top: unknown[] = o.createAta ? [create] : [];
  const inner: unknown[] = [];
  if (o.createAta) inner.push({ index: 0, instructions: [{ program: 'spl-token', programId: program, parsed: { type: 'initializeAccount3', info: { account: dest, mint, owner: o.wallet } }, stackHeight: 2 }] });
  if (o.viaCpi) {
    // The outer instruction is unparsed ({accounts, data, programId}); the token move is its inner instruction.
    top.push({ accounts: [o.payer, source, dest, mint], data: 'wZRp7', programId: CPI_PROGRAM, stackHeight: null });
    inner.push({ index: top.length - 1, instructions: [transfer] });
  } else top.push(transfer);
  return finish(o, keys, top, pre, post, preTok, postTok, inner);
}
