/** Decimals of the minor units: lamports (SOL) and USDT's SPL mint. */
export const SOL_DECIMALS = 9;
export const USDT_SPL_DECIMALS = 6;
