import { METHOD_RULES, type Method } from './methods.ts';
import { formatMinor, formatMinorFixed } from './money.ts';

export interface DepositInput {
  method: Method;
  receiver: string;
  payAmountMinor: bigint;
  orderId: string;
  /** Shown by wallets: UPI payee name / Solana Pay label. */
  payeeName: string;
  reference?: string;
  /** USDT token: SPL mint or TRC20 contract. */
  token?: string;
}

const q = encodeURIComponent;

/**
 * The payee's name as the customer sees it: in the wallet (UPI `pn`, Solana Pay `label`) and on
 * the checkout page alike. The configured payee name (the account holder the money goes to), else the merchant's.
 */
export const payeeShown = (payeeName: string, merchantName: string): string => payeeName || merchantName;

/** The QR-able URI a customer's wallet opens for this intent. */
export function paymentUri(d: DepositInput): string {
  const decimals = METHOD_RULES[d.method].decimals;
  switch (d.method) {
    case 'UPI':
      // NPCI UPI linking spec: pa, pn, am (2 decimals), cu, tn.
      return `upi://pay?pa=${q(d.receiver)}&pn=${q(d.payeeName)}&am=${formatMinorFixed(d.payAmountMinor, 2)}&cu=INR&tn=${q(d.orderId)}`;
    case 'USDT_TRC20':
      // No formal standard; TronLink/Trust read the address and most honour amount/token.
      return `tron:${d.receiver}?token=${q(d.token ?? '')}&amount=${formatMinor(d.payAmountMinor, decimals)}`;
    case 'SOL':
    case 'USDT_SOL': {
      // Solana Pay transfer request: solana:<recipient>?amount&spl-token&reference&label&message.
      const parts = [`amount=${formatMinor(d.payAmountMinor, decimals)}`];
      if (d.method === 'USDT_SOL' && d.token) parts.push(`spl-token=${d.token}`);
      if (d.reference) parts.push(`reference=${d.reference}`);
      parts.push(`label=${q(d.payeeName)}`, `message=${q('Order ' + d.orderId)}`);
      return `solana:${d.receiver}?${parts.join('&')}`;
    }
  }
}
