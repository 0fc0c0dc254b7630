import type { BankParser, ParseResult } from './bank.ts';
import { AMOUNT, DATE, MASK, VPA, classifyOther, credit, isRefundPayer, lineAfter, oneLine, utrAfter } from './text.ts';

// "your account xx4321 is credited by Rs. 499.37 on 22-Nov-2026 for UPI transaction." then labelled details.
// Field labels are [unconfirmed] (README §1.5); the sentence mirrors the real IMPS template.
const CREDIT = new RegExp(`your account ${MASK} is credited by ${AMOUNT} on ${DATE} for (\\w+) transaction`, 'i');

function parse(text: string): ParseResult {
  const t = oneLine(text);
  const c = CREDIT.exec(t);
  if (!c) return classifyOther(t); // includes "credited … for reversal of UPI transaction"
  if (c[4].toUpperCase() !== 'UPI') return { kind: 'not_credit', reason: 'not_upi' };
  const payerVpa = new RegExp(`Payer VPA:\\s*(${VPA})`, 'i').exec(t)?.[1];
  const payerName = lineAfter(text, 'Payer Name:');
  if (isRefundPayer(payerVpa, payerName)) return { kind: 'not_credit', reason: 'refund' };
  return credit({
    mask: c[1],
    amount: c[2],
    date: c[3],
    utr: utrAfter(t, 'UPI Ref(?:erence)?\\.? (?:No|Number)\\.?\\s*:?'),
    payerVpa,
    payerName,
  });
}

export const kotak: BankParser = {
  id: 'kotak',
  senderDomains: ['kotak.bank.in', 'kotak.com'],
  parse,
};
