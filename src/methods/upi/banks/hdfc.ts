import type { BankParser, ParseResult } from './bank.ts';
import { AMOUNT, DATE, MASK, VPA, classifyOther, credit, isRefundPayer, oneLine, utrAfter } from './text.ts';

// 2026 `.bank.in` template: sentence, then "a. Date: … b. Sender: NAME (VPA: x@y) c. UPI Reference No.: …".
const NEW = new RegExp(`${AMOUNT} has been successfully credited to your HDFC Bank account ending (?:in )?${MASK}\\b`, 'i');
// Legacy: "Rs. 200.00 is successfully credited to your account **0682 by VPA x@y NAME on 30-11-25."
const LEGACY = new RegExp(`${AMOUNT} is successfully credited to your account ${MASK} by VPA (${VPA})(.*?) on ${DATE}`, 'i');

function parse(text: string): ParseResult {
  const t = oneLine(text);
  const n = NEW.exec(t);
  if (n) {
    const sender = new RegExp(`Sender:\\s*(.*?)\\s*\\(VPA:\\s*(${VPA})\\)`, 'i').exec(t);
    const payerName = sender?.[1] || undefined;
    const payerVpa = sender?.[2];
    if (isRefundPayer(payerVpa, payerName)) return { kind: 'not_credit', reason: 'refund' };
    return credit({
      amount: n[1],
      mask: n[2],
      utr: utrAfter(t, 'UPI Reference No\\.?\\s*:?'),
      date: new RegExp(`\\bDate:\\s*${DATE}`, 'i').exec(t)?.[1],
      payerVpa,
      payerName,
    });
  }
  const l = LEGACY.exec(t);
  if (l) {
    const payerName = l[4].trim() || undefined;
    if (isRefundPayer(l[3], payerName)) return { kind: 'not_credit', reason: 'refund' };
    return credit({
      amount: l[1],
      mask: l[2],
      payerVpa: l[3],
      payerName,
      date: l[5],
      utr: utrAfter(t, 'reference (?:number|no\\.?)\\s*(?:is|:)?'),
    });
  }
  // Everything else, including the RuPay "debited … and credited to VPA" alert, is not a credit.
  return classifyOther(t);
}

export const hdfc: BankParser = {
  id: 'hdfc',
  senderDomains: ['hdfcbank.bank.in', 'hdfcbank.net'],
  marketingSenders: ['information'],
  parse,
};
