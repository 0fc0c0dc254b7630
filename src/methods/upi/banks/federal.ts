import type { BankParser, ParseResult } from './bank.ts';
import { AMOUNT, DATE, MASK, TIME, VPA, classifyOther, credit, isRefundPayer, oneLine, utrAfter } from './text.ts';

// HTML part only (the text part is a placeholder). Wording [unconfirmed], README §1.8:
// "Your Federal Bank A/c XX4321 has been credited with INR 499.37 on 22-11-2026 07:45:12 through UPI.
//  UPI Ref No: 632612345678. Remitter: ASHA VERMA (asha.verma@okaxis)."
const CREDIT = new RegExp(`Federal Bank A/c ${MASK} has been credited with ${AMOUNT} on ${DATE}(?: ${TIME})?(?: through (\\w+))?`, 'i');

function parse(text: string): ParseResult {
  const t = oneLine(text);
  const c = CREDIT.exec(t);
  if (!c) return classifyOther(t);
  if ((c[5] ?? '').toUpperCase() !== 'UPI') return { kind: 'not_credit', reason: 'not_upi' };
  const remitter = new RegExp(`Remitter:\\s*(.*?)\\s*\\((${VPA})\\)`, 'i').exec(t);
  if (isRefundPayer(remitter?.[2])) return { kind: 'not_credit', reason: 'refund' };
  return credit({
    mask: c[1],
    amount: c[2],
    date: c[3],
    time: c[4],
    utr: utrAfter(t, 'UPI Ref(?:erence)?\\.? No\\.?\\s*:?'),
    payerName: remitter?.[1] || undefined,
    payerVpa: remitter?.[2],
  });
}

export const federal: BankParser = {
  id: 'federal',
  senderDomains: ['federal.bank.in', 'federalbank.co.in'],
  parse,
};
