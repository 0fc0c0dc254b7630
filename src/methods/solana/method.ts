import { isSolanaAddress } from '../../config/addresses.ts';
import { base58Encode } from '../../domain/base58.ts';
import { formatMinor } from '../../domain/money.ts';
import type { Random } from '../../domain/ports.ts';
import type { DepositInput, InitWizard, MethodDescriptor } from '../method.ts';
import { sandboxSeed } from '../sandbox/seed.ts';
import { SolConfig, splConfig, type SolSection, type SplSection } from './config.ts';
import { SOL_ASSET, SPL_TOKENS, splAsset, type SplToken } from './tokens.ts';

const q = encodeURIComponent;

/** Solana Pay transfer request: solana:<recipient>?amount&spl-token&reference&label&message. */
const solanaPay = (decimals: number) => (d: DepositInput) => {
  const parts = [`amount=${formatMinor(d.payAmountMinor, decimals)}`];
  if (d.token) parts.push(`spl-token=${d.token}`);
  if (d.reference) parts.push(`reference=${d.reference}`);
  parts.push(`label=${q(d.payeeName)}`, `message=${q('Order ' + d.orderId)}`);
  return `solana:${d.receiver}?${parts.join('&')}`;
};

/** The same transfer request for what is still due: only `amount` changes, the reference stays. */
const remainder = (decimals: number) => (uri: string, dueMinor: bigint) => uri.replace(/([?&])amount=[^&]*/, `$1amount=${formatMinor(dueMinor, decimals)}`);

const askWallet = (what: string) => async ({ input, confirm, req }: InitWizard) =>
  (await confirm({ message: `Accept ${what}?`, default: false }))
    ? { wallet: (await input({ message: 'Your Solana wallet address', validate: req(isSolanaAddress, 'expected a base58 public key') })).trim() }
    : undefined;

/** Every Solana method watches a wallet; a signature is a 64-byte base58 string. */
const shared = {
  family: 'solana',
  txRef: { noun: 'transaction id' },
  receiver: (s: { wallet: string }) => s.wallet,
  // Solana Pay: each intent's reference key rides on the payer's transfer; any 32 bytes as a base58 public key.
  newReference: (random: Random) => base58Encode(random.bytes(32)),
  sandbox: {
    receiver: base58Encode(sandboxSeed('solana')),
    txRef: (bytes: Uint8Array) => base58Encode(bytes.subarray(0, 32)) + base58Encode(bytes.subarray(32, 64)),
  },
} as const;

/** What the checkout says for any Solana asset: paid from a Solana wallet app. */
const walletCheckout = { appButton: 'Open in a Solana wallet', scanWith: 'wallet', addressLabel: 'Address' } as const;

/**
 * One SPL token's method, from its row of the token table: sent to the wallet's associated token
 * account for the mint. Solana intents are matched by their reference, but a transfer without one
 * (typed by hand, an exchange withdrawal) is matched by amount like UPI and TRON: so the same
 * round-unit rule holds (steps of 0.01, never a whole unit).
 */
export function splTokenMethod(t: SplToken): MethodDescriptor<SplSection> {
  const asset = splAsset(t);
  return {
    ...shared,
    id: t.id,
    rules: { decimals: t.decimals, amountStep: 10n ** BigInt(t.decimals - 2), unit: t.unit, roundUnitMinor: 10n ** BigInt(t.decimals) },
    config: splConfig(t.mint),
    token: (s) => s?.mint ?? t.mint,
    ...(t.peg ? { pricing: { peg: t.peg } } : {}),
    paymentUri: solanaPay(t.decimals),
    remainderUri: remainder(t.decimals),
    checkout: {
      ...walletCheckout,
      label: `${t.unit} on Solana (SPL)`,
      choice: { group: t.unit, network: 'Solana (SPL)' },
      warning: `Send only ${t.unit} on the Solana network (SPL). ${t.unit} sent on any other network (TRON, Ethereum, BNB Chain…) does not arrive and is lost.`,
    },
    init: { order: t.initOrder, ask: askWallet(`${t.unit} on Solana`) },
    loadSource: async (section, deps) => (await import('./source.ts')).createSolanaSource(asset, section, deps),
  };
}

/** SOL, native lamports to the wallet. */
export const solMethod: MethodDescriptor<SolSection> = {
  ...shared,
  id: SOL_ASSET.method,
  rules: { decimals: SOL_ASSET.decimals, amountStep: 1_000n, unit: 'SOL', roundUnitMinor: 1_000_000_000n }, // 0.000001 SOL; never a whole SOL
  config: SolConfig,
  paymentUri: solanaPay(SOL_ASSET.decimals),
  remainderUri: remainder(SOL_ASSET.decimals),
  checkout: {
    ...walletCheckout,
    label: 'SOL on Solana',
    choice: { group: 'SOL', network: 'Solana' },
    warning: 'Send only SOL on the Solana network. Anything sent on another network does not arrive and is lost.',
  },
  init: { order: 30, ask: askWallet('SOL on Solana') },
  loadSource: async (section, deps) => (await import('./source.ts')).createSolanaSource(SOL_ASSET, section, deps),
};

/** The family's methods, in the API document's order: each token of the table, then SOL. */
export const solanaMethods: readonly MethodDescriptor[] = [...SPL_TOKENS.map(splTokenMethod), solMethod];
