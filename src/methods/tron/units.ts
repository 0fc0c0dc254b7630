/** USDT on TRON has 6 decimals: amounts are in its smallest unit (TRC20 `decimals()`). */
export const USDT_TRC20_DECIMALS = 6;
