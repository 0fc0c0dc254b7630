import { isTronAddress } from '../../config/addresses.ts';
import { tronAddressFromHex } from '../../domain/base58.ts';
import { formatMinor } from '../../domain/money.ts';
import type { MethodDescriptor } from '../method.ts';
import { sandboxSeed } from '../sandbox/seed.ts';
import { tronConfig, type TronSection } from './config.ts';
import { TRC20_TOKENS, tronAsset, type Trc20Token } from './tokens.ts';

/** One TRC20 token on TRON, seen through TronGrid, from its row of the token table. */
export function trc20Method(t: Trc20Token): MethodDescriptor<TronSection> {
  const asset = tronAsset(t);
  return {
    id: t.id,
    family: 'tron',
    // Steps of 0.01; never a whole unit.
    rules: { decimals: t.decimals, amountStep: 10n ** BigInt(t.decimals - 2), unit: t.unit, roundUnitMinor: 10n ** BigInt(t.decimals) },
    txRef: {
      noun: 'transaction id',
      // Lower-case hex without 0x; a row key (txid:from:value) keeps its base58 sender as is.
      normalize: (ref) => {
        const [txid, ...rest] = ref.split(':');
        return [txid.toLowerCase().replace(/^0x/, ''), ...rest].join(':');
      },
      rowKeyed: true,
    },
    config: tronConfig(t.contract),
    receiver: (s) => s.address,
    token: (s) => s?.contract ?? t.contract,
    ...(t.peg ? { pricing: { peg: t.peg } } : {}),
    // No formal standard; TronLink/Trust read the address and most honour amount/token.
    paymentUri: (d) => `tron:${d.receiver}?token=${encodeURIComponent(d.token ?? '')}&amount=${formatMinor(d.payAmountMinor, t.decimals)}`,
    checkout: {
      label: `${t.unit} on TRON (TRC-20)`,
      choice: { group: t.unit, network: 'TRON (TRC-20)' },
      appButton: 'Open in a TRON wallet',
      scanWith: 'wallet',
      addressLabel: 'Address',
      warning: `Send only ${t.unit} on the TRON network (TRC-20). ${t.unit} sent on any other network (Ethereum, BNB Chain, Solana…) does not arrive and is lost.`,
    },
    sandbox: {
      receiver: tronAddressFromHex('41' + sandboxSeed('tron').subarray(0, 20).toString('hex')),
      txRef: (bytes) => Buffer.from(bytes).toString('hex').slice(0, 64).padEnd(64, '0'),
    },
    init: {
      order: t.initOrder,
      async ask({ input, confirm, req, secret, credentials }) {
        if (!(await confirm({ message: `Accept ${t.unit} on TRON (TRC20)?`, default: false }))) return undefined;
        const address = (await input({ message: 'Your TRON address', validate: req(isTronAddress, 'expected a TRON address (T…)') })).trim();
        const section: Record<string, unknown> = { address };
        if (await confirm({ message: 'Use a TronGrid API key (recommended: without one TronGrid rate-limits hard)?', default: true })) {
          section.apiKey = await secret({ path: `methods.${t.id}.apiKey`, what: 'TronGrid API key', env: 'PAYD_TRONGRID_KEY', credential: credentials.trongridKey });
        }
        return section;
      },
    },
    // The TRON source needs no tronweb: base58check is all it used.
    loadSource: async (section, deps) => (await import('./source.ts')).createTronSource(asset, section, deps),
  };
}

/** The family's methods: one per row of the token table. */
export const tronMethods: readonly MethodDescriptor[] = TRC20_TOKENS.map(trc20Method);
