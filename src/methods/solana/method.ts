import { isSolanaAddress } from '../../config/addresses.ts';
import { base58Encode } from '../../domain/base58.ts';
import { formatMinor } from '../../domain/money.ts';
import type { DepositInput, InitWizard, MethodDescriptor } from '../method.ts';
import { sandboxSeed } from '../sandbox/seed.ts';
import { SolConfig, USDT_SPL_MINT, UsdtSolConfig, type SolSection, type UsdtSolSection } from './config.ts';
import { SOL_DECIMALS, USDT_SPL_DECIMALS } from './units.ts';

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

/** Both Solana methods watch a wallet; a signature is a 64-byte base58 string. */
const shared = {
  family: 'solana',
  txRef: { noun: 'transaction id' },
  receiver: (s: { wallet: string }) => s.wallet,
  // Solana Pay: each intent's reference key rides on the payer's transfer.
  needsReference: true,
  sandbox: {
    receiver: base58Encode(sandboxSeed('solana')),
    txRef: (bytes: Uint8Array) => base58Encode(bytes.subarray(0, 32)) + base58Encode(bytes.subarray(32, 64)),
  },
} as const;

/** What the checkout says for either token: paid from a Solana wallet app. */
const walletCheckout = { appButton: 'Open in a Solana wallet', scanWith: 'wallet', addressLabel: 'Address' } as const;

/**
 * USDT as an SPL token, to the wallet's associated token account for the mint.
 * Solana intents are matched by their reference, but a transfer without one (typed by hand, an
 * exchange withdrawal) is matched by amount like UPI and TRON: so the same round-unit rule holds.
 */
export const usdtSolMethod: MethodDescriptor<UsdtSolSection> = {
  ...shared,
  id: 'USDT_SOL',
  rules: { decimals: USDT_SPL_DECIMALS, amountStep: 10_000n, unit: 'USDT', roundUnitMinor: 1_000_000n }, // 0.01 USDT; never a whole USDT
  config: UsdtSolConfig,
  token: (s) => s?.mint ?? USDT_SPL_MINT,
  paymentUri: solanaPay(USDT_SPL_DECIMALS),
  remainderUri: remainder(USDT_SPL_DECIMALS),
  checkout: {
    ...walletCheckout,
    label: 'USDT on Solana (SPL)',
    warning: 'Send only USDT on the Solana network (SPL). USDT sent on any other network (TRON, Ethereum, BNB Chain…) does not arrive and is lost.',
  },
  init: { order: 40, ask: askWallet('USDT on Solana') },
  loadSource: async (section, deps) => (await import('./source.ts')).createSolanaSource('USDT_SOL', section, deps),
};

/** SOL, native lamports to the wallet. */
export const solMethod: MethodDescriptor<SolSection> = {
  ...shared,
  id: 'SOL',
  rules: { decimals: SOL_DECIMALS, amountStep: 1_000n, unit: 'SOL', roundUnitMinor: 1_000_000_000n }, // 0.000001 SOL; never a whole SOL
  config: SolConfig,
  paymentUri: solanaPay(SOL_DECIMALS),
  remainderUri: remainder(SOL_DECIMALS),
  checkout: {
    ...walletCheckout,
    label: 'SOL on Solana',
    warning: 'Send only SOL on the Solana network. Anything sent on another network does not arrive and is lost.',
  },
  init: { order: 30, ask: askWallet('SOL on Solana') },
  loadSource: async (section, deps) => (await import('./source.ts')).createSolanaSource('SOL', section, deps),
};
