/**
 * The payee's name as the customer sees it: in the wallet (UPI `pn`, Solana Pay `label`) and on
 * the checkout page alike. The configured payee name (the account holder the money goes to), else the merchant's.
 */
export const payeeShown = (payeeName: string, merchantName: string): string => payeeName || merchantName;
