import type { BankParser, ParseResult } from './bank.ts';
import { AMOUNT, DATE, MASK, VPA, classifyOther, credit, isRefundPayer, labelled, lineAfter, oneLine, utrAfter } from './text.ts';

// Kotak811 (REAL-2026.md E-07): "You've received a UPI Credit in your Kotak A/c (XX1111). Here's the summary of your
// transaction: Date: 17-Sep-26 Amount: ₹1.01 Sender: SOME PERSON UPI Reference Number (RRN): 626000000001". No payer VPA.
const APP = new RegExp(`received a UPI Credit in your Kotak A/c \\(${MASK}\\)`, 'i');
// No \b: flattened cells may be glued to the value before them ("SOME PERSONUPI Reference…").
const APP_ROWS = ['Date:', 'Amount:', 'Sender:', 'UPI Reference Number', 'View balance', 'Digitally yours'];
// Account alert: "your account xx4321 is credited by Rs. 499.37 on 22-Nov-2026 for UPI transaction." then labelled
// details. Field labels are [unconfirmed] (fixtures README §1.5); the sentence mirrors the real IMPS template.
const ACCOUNT = new RegExp(`your account ${MASK} is credited by ${AMOUNT} on ${DATE} for (\\w+) transaction`, 'i');
const RRN = 'UPI Ref(?:erence)?\\.? (?:No|Number)\\.?(?:\\s*\\(RRN\\))?\\s*:?';

function parse(text: string): ParseResult {
  const t = oneLine(text);
  const a = APP.exec(t);
  if (a) {
    const amount = new RegExp(`^${AMOUNT}`).exec(labelled(t, 'Amount:', APP_ROWS) ?? '')?.[1] ?? '';
    return credit({
      mask: a[1],
      amount,
      date: new RegExp(`^${DATE}`).exec(labelled(t, 'Date:', APP_ROWS) ?? '')?.[1],
      utr: utrAfter(t, RRN),
      payerName: labelled(t, 'Sender:', APP_ROWS),
    });
  }
  const c = ACCOUNT.exec(t);
  if (!c) return classifyOther(t); // includes "credited … for reversal of UPI transaction"
  if (c[4].toUpperCase() !== 'UPI') return { kind: 'not_credit', reason: 'not_upi' };
  const payerVpa = new RegExp(`Payer VPA:\\s*(${VPA})`, 'i').exec(t)?.[1];
  if (isRefundPayer(payerVpa)) return { kind: 'not_credit', reason: 'refund' };
  return credit({ mask: c[1], amount: c[2], date: c[3], utr: utrAfter(t, RRN), payerVpa, payerName: lineAfter(text, 'Payer Name:') });
}

export const kotak: BankParser = {
  id: 'kotak',
  senderDomains: ['kotak.bank.in', 'kotak.com'],
  parse,
};
