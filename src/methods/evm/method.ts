/**
 * The EVM currencies' descriptors, one per token row of each chain row (chains.ts): nothing
 * here names a chain or a token. The descriptors stay light; viem loads with the source.
 */
import type { InitWizard, MethodDescriptor } from '../method.ts';
import { sandboxSeed } from '../sandbox/seed.ts';
import { checksumAddress, isEvmAddress } from './address.ts';
import { EVM_CHAINS, evmCurrencies, type EvmChain, type EvmCurrency } from './chains.ts';
import { evmSectionSchema, type EvmSection } from './config.ts';

/** EIP-681: a call of the token's `transfer(address,uint256)` on that chain, amount in base units. */
export const eip681 = (token: string, chainId: number, to: string, baseUnits: bigint): string => `ethereum:${token}@${chainId}/transfer?address=${to}&uint256=${baseUnits}`;

/**
 * `payd init` asks once whether to accept stablecoins on EVM chains at all, then per currency;
 * each chain's receiving address once, the first time one of its currencies needs it. One address
 * may serve every EVM chain: a later chain is offered the address given before.
 */
const initAnswers = new WeakMap<InitWizard, { accept: boolean; byChain: Map<number, string>; last?: string }>();
async function acceptsEvm(w: InitWizard): Promise<boolean> {
  let a = initAnswers.get(w);
  if (!a) {
    const networks = EVM_CHAINS.map((c) => c.network.replace(/ \(.*\)$/, '')).join(', ');
    a = { accept: await w.confirm({ message: `Accept USDT or USDC on EVM chains (${networks})?`, default: false }), byChain: new Map() };
    initAnswers.set(w, a);
  }
  return a.accept;
}
async function evmAddress(w: InitWizard, chain: EvmChain): Promise<string> {
  const a = initAnswers.get(w)!;
  let address = a.byChain.get(chain.chainId);
  if (address === undefined) {
    if (a.last !== undefined && (await w.confirm({ message: `Receive on ${chain.network} at ${a.last} too (one address serves every EVM chain)?`, default: true }))) address = a.last;
    else
      address = (
        await w.input({ message: `Your receiving address on ${chain.network} (0x…; the same address may serve every EVM chain)`, validate: w.req(isEvmAddress, 'expected 0x and 40 hex digits (mixed case must be a correct EIP-55 checksum)') })
      ).trim();
    a.byChain.set(chain.chainId, address);
    a.last = address;
  }
  return address;
}

/** Order of the init questions: after UPI, TRON and Solana, chain by chain. */
const INIT_ORDER = 100;

function descriptor(c: EvmCurrency, index: number): MethodDescriptor<EvmSection> {
  const { chain, token } = c;
  const unit = token.symbol;
  return {
    id: c.id,
    family: 'evm',
    // 0.01 of the token is the unique-amount step; never a whole token (payers round to those).
    rules: { decimals: token.decimals, amountStep: 10n ** BigInt(Math.max(0, token.decimals - 2)), unit, roundUnitMinor: 10n ** BigInt(token.decimals) },
    txRef: {
      noun: 'transaction hash',
      // 0x and lower-case hex; a row (one Transfer log) is keyed `<hash>:<log index>`.
      normalize: (t) => {
        const [hash, ...rest] = t.split(':');
        const h = hash!.toLowerCase();
        return [h.startsWith('0x') ? h : `0x${h}`, ...rest].join(':');
      },
      rowKeyed: true,
    },
    config: evmSectionSchema(c),
    receiver: (s) => checksumAddress(s.address),
    token: (s) => checksumAddress(s?.contract ?? token.contract),

    paymentUri: (d) => eip681(d.token ?? token.contract, chain.chainId, d.receiver, d.payAmountMinor),
    checkout: {
      label: `${unit} on ${chain.network}`,
      appButton: 'Open in a wallet',
      scanWith: 'wallet',
      addressLabel: 'Address',
      warning: `Send only ${unit} on ${chain.network}. ${unit} sent on any other network, or any other token sent to this address, does not count and may be lost.`,
    },
    sandbox: {
      receiver: checksumAddress('0x' + sandboxSeed('evm').subarray(0, 20).toString('hex')),
      txRef: (bytes) => '0x' + Buffer.from(bytes).toString('hex').slice(0, 64).padEnd(64, '0'),
    },
    init: {
      order: INIT_ORDER + index,
      async ask(w) {
        if (!(await acceptsEvm(w)) || !(await w.confirm({ message: `Accept ${unit} on ${chain.network}?`, default: false }))) return undefined;
        return { address: await evmAddress(w, chain) };
      },
    },
    loadSource: async (section, deps) => (await import('./source.ts')).createEvmSource(c, section, deps),
  };
}

/** Every EVM currency of these chains (default: the built-in ones), in row order. */
export const evmMethods = (chains: readonly EvmChain[] = EVM_CHAINS): MethodDescriptor<EvmSection>[] => evmCurrencies(chains).map(descriptor);
