/**
 * The EVM chains payd reads and the stablecoins on each, as rows: a chain is one row of
 * `EVM_CHAINS`, a token one row of its `tokens`. Every EVM currency (`<TOKEN>_<CHAIN>`) and its
 * descriptor are built from these rows (method.ts), so a new token is one line here.
 *
 * Mainnet contracts as the issuers and the chains' token lists give them; match tokens by
 * contract, never by symbol (USDT is named USDT0 on Polygon and Arbitrum). USDT and USDC on
 * BNB Smart Chain are Binance-Peg tokens with 18 decimals; the others have 6.
 */

export interface EvmToken {
  /** The ticker merchants and payers see ("USDT"). */
  symbol: string;
  /** The ERC-20 contract on mainnet (EIP-55 spelling). */
  contract: string;
  decimals: number;
}

/** When a block is final: the node's `finalized` tag, else (a node that cannot resolve the tag) `depth` blocks under the newest. */
export interface EvmFinality {
  tag: 'finalized';
  /** Confirmations used when the node answers `finalized` with nothing or an error; also what `confirmations` overrides. */
  depth: number;
}

export interface EvmChain {
  /** The currency suffix (`USDT_<key>`). */
  key: string;
  chainId: number;
  /** The network as wallets and exchanges name it on their withdrawal screens. */
  network: string;
  /** The default JSON-RPC endpoint when the section lists none: a public one, rate-limited, for trying payd out. */
  defaultRpc: string;
  finality: EvmFinality;
  /** Roughly how often a block comes, s: the default poll and the doctor's words. */
  blockSeconds: number;
  /** Blocks one `eth_getLogs` asks for at first; a provider's refusal shrinks it (ranges.ts). */
  logRange: number;
  /** What the payer's wallet spends as fees: the native coin. */
  gasCoin: string;
  tokens: EvmToken[];
}

export const EVM_CHAINS: readonly EvmChain[] = [
  {
    key: 'ETH',
    chainId: 1,
    network: 'Ethereum (ERC20)',
    defaultRpc: 'https://ethereum-rpc.publicnode.com',
    finality: { tag: 'finalized', depth: 64 },
    blockSeconds: 12,
    logRange: 2_000,
    gasCoin: 'ETH',
    tokens: [
      { symbol: 'USDT', contract: '0xdAC17F958D2ee523a2206206994597C13D831ec7', decimals: 6 },
      { symbol: 'USDC', contract: '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48', decimals: 6 },
    ],
  },
  {
    key: 'BSC',
    chainId: 56,
    network: 'BNB Smart Chain (BEP20)',
    defaultRpc: 'https://bsc-rpc.publicnode.com',
    // Fast finality: block n is final by n+2; `finalized` returns that header.
    finality: { tag: 'finalized', depth: 15 },
    blockSeconds: 1,
    logRange: 2_000,
    gasCoin: 'BNB',
    tokens: [
      { symbol: 'USDT', contract: '0x55d398326f99059fF775485246999027B3197955', decimals: 18 },
      { symbol: 'USDC', contract: '0x8AC76a51cc950d9822D68b83fE1Ad97B32Cd580d', decimals: 18 },
    ],
  },
  {
    key: 'POLYGON',
    chainId: 137,
    network: 'Polygon PoS',
    defaultRpc: 'https://polygon-bor-rpc.publicnode.com',
    // Milestones make `finalized` work; they have lagged for minutes, which the lag alert shows.
    finality: { tag: 'finalized', depth: 128 },
    blockSeconds: 2,
    logRange: 2_000,
    gasCoin: 'POL',
    tokens: [
      { symbol: 'USDT', contract: '0xc2132D05D31c914a87C6611C10748AEb04B58e8F', decimals: 6 },
      { symbol: 'USDC', contract: '0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359', decimals: 6 },
    ],
  },
  {
    key: 'ARBITRUM',
    chainId: 42161,
    network: 'Arbitrum One',
    defaultRpc: 'https://arbitrum-one-rpc.publicnode.com',
    // `finalized`: the newest L2 block whose batch is in a finalized L1 block.
    finality: { tag: 'finalized', depth: 3_000 },
    blockSeconds: 0.25,
    logRange: 10_000,
    gasCoin: 'ETH',
    tokens: [
      { symbol: 'USDT', contract: '0xFd086bC7CD5C481DCC9C85ebE478A1C0b69FCbb9', decimals: 6 },
      { symbol: 'USDC', contract: '0xaf88d065e77c8cC2239327C5EDb3A432268e5831', decimals: 6 },
    ],
  },
  {
    key: 'BASE',
    chainId: 8453,
    network: 'Base',
    defaultRpc: 'https://base-rpc.publicnode.com',
    // OP Stack: `finalized` is a batch in a finalized L1 block (minutes).
    finality: { tag: 'finalized', depth: 900 },
    blockSeconds: 2,
    logRange: 1_000,
    gasCoin: 'ETH',
    // No Tether-issued USDT on Base; only USDC.
    tokens: [{ symbol: 'USDC', contract: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913', decimals: 6 }],
  },
];

/** One currency: a token row on a chain row. */
export interface EvmCurrency {
  id: string;
  chain: EvmChain;
  token: EvmToken;
}

export const currencyId = (chain: EvmChain, token: EvmToken): string => `${token.symbol}_${chain.key}`;

/** Every EVM currency, chain by chain, token by token. */
export const evmCurrencies = (chains: readonly EvmChain[] = EVM_CHAINS): EvmCurrency[] =>
  chains.flatMap((chain) => chain.tokens.map((token) => ({ id: currencyId(chain, token), chain, token })));
