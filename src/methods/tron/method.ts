import { isTronAddress } from '../../config/addresses.ts';
import { tronAddressFromHex } from '../../domain/base58.ts';
import { formatMinor } from '../../domain/money.ts';
import type { MethodDescriptor } from '../method.ts';
import { sandboxSeed } from '../sandbox/seed.ts';
import { TronConfig, USDT_TRC20_CONTRACT, type TronSection } from './config.ts';
import { USDT_TRC20_DECIMALS } from './units.ts';

/** USDT (TRC20) on TRON, seen through TronGrid. */
export const usdtTrc20Method: MethodDescriptor<TronSection> = {
  id: 'USDT_TRC20',
  family: 'tron',
  rules: { decimals: USDT_TRC20_DECIMALS, amountStep: 10_000n, unit: 'USDT', roundUnitMinor: 1_000_000n }, // 0.01 USDT; never a whole USDT
  txRef: {
    noun: 'transaction id',
    // Lower-case hex without 0x; a row key (txid:from:value) keeps its base58 sender as is.
    normalize: (t) => {
      const [txid, ...rest] = t.split(':');
      return [txid.toLowerCase().replace(/^0x/, ''), ...rest].join(':');
    },
    rowKeyed: true,
  },
  config: TronConfig,
  receiver: (s) => s.address,
  token: (s) => s?.contract ?? USDT_TRC20_CONTRACT,
  needsReference: false,
  // No formal standard; TronLink/Trust read the address and most honour amount/token.
  paymentUri: (d) => `tron:${d.receiver}?token=${encodeURIComponent(d.token ?? '')}&amount=${formatMinor(d.payAmountMinor, USDT_TRC20_DECIMALS)}`,
  checkout: {
    label: 'USDT on TRON (TRC-20)',
    appButton: 'Open in a TRON wallet',
    scanWith: 'wallet',
    addressLabel: 'Address',
    warning: 'Send only USDT on the TRON network (TRC-20). USDT sent on any other network (Ethereum, BNB Chain, Solana…) does not arrive and is lost.',
  },
  sandbox: {
    receiver: tronAddressFromHex('41' + sandboxSeed('tron').subarray(0, 20).toString('hex')),
    txRef: (bytes) => Buffer.from(bytes).toString('hex').slice(0, 64).padEnd(64, '0'),
  },
  init: {
    order: 20,
    async ask({ input, confirm, req, secret, credentials }) {
      if (!(await confirm({ message: 'Accept USDT on TRON (TRC20)?', default: false }))) return undefined;
      const address = (await input({ message: 'Your TRON address', validate: req(isTronAddress, 'expected a TRON address (T…)') })).trim();
      const section: Record<string, unknown> = { address };
      if (await confirm({ message: 'Use a TronGrid API key (recommended: without one TronGrid rate-limits hard)?', default: true })) {
        section.apiKey = await secret({ path: 'methods.USDT_TRC20.apiKey', what: 'TronGrid API key', env: 'PAYD_TRONGRID_KEY', credential: credentials.trongridKey });
      }
      return section;
    },
  },
  // The TRON source needs no tronweb: base58check is all it used.
  loadSource: async (section, deps) => (await import('./source.ts')).createTronSource(section, deps),
};
