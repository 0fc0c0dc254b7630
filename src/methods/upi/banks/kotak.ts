import type { BankParser, ParseResult } from './bank.ts';
import { counterpartyCheck } from './counterparty.ts';
import { atVerb, classifyOther, firstMoneyVerb } from './direction.ts';
import { AMOUNT, DATE, MASK, VPA, credit, isRefundPayer, labelled, oneLine, utrAfter } from './text.ts';

// Kotak811 (test/fixtures/upi-emails/REAL-2026.md E-07): "You've received a UPI Credit in your Kotak A/c (XX1111). Here's the summary of your
// transaction: Date: 17-Sep-26 Amount: ₹1.01 Sender: SOME PERSON UPI Reference Number (RRN): 626000000001". No payer VPA.
const APP = new RegExp(`received a UPI Credit in your Kotak A/c \\(${MASK}\\)`, 'i');
// No \b: flattened cells may be glued to the value before them ("SOME PERSONUPI Reference…").
const APP_ROWS = ['Date:', 'Amount:', 'Sender:', 'UPI Reference Number', 'View balance', 'Digitally yours'];
const APP_LABELS = [/Date:/gi, /Amount:/gi, /Sender:/gi];
// Account alert: "your account xx4321 is credited by Rs. 499.37 on 22-Nov-2026 for UPI transaction." then labelled
// details. Field labels are [unconfirmed] (test/fixtures/upi-emails/README.md §1.5); the sentence mirrors the real IMPS template.
const ACCOUNT = new RegExp(`your account ${MASK} is credited by ${AMOUNT} on ${DATE} for (\\w{1,20}) transaction`, 'i');
const ACCOUNT_ROWS = ['Payer VPA:', 'Payer Name:', 'UPI Ref', 'Warm regards', 'Regards', 'This message was sent'];
const ACCOUNT_LABELS = [/Payer VPA:/gi, /Payer Name:/gi];
const RRN = 'UPI Ref(?:erence)?\\.? (?:No|Number)\\.?(?:\\s*\\(RRN\\))?\\s*:?';

function parse(text: string): ParseResult {
  const t = oneLine(text);
  const verb = firstMoneyVerb(t);
  if (!verb?.credit) return classifyOther(t);
  const a = atVerb(t, verb, APP);
  if (a) {
    const rows = t.slice(a.index + a[0].length);
    const payerName = labelled(rows, 'Sender:', APP_ROWS);
    const bad = counterpartyCheck(t, { payerName }, APP_LABELS);
    if (bad) return bad;
    return credit({
      mask: a[1],
      amount: new RegExp(`^${AMOUNT}`).exec(labelled(rows, 'Amount:', APP_ROWS) ?? '')?.[1] ?? '',
      date: new RegExp(`^${DATE}`).exec(labelled(rows, 'Date:', APP_ROWS) ?? '')?.[1],
      utr: utrAfter(rows, RRN),
      ...(payerName ? { payerName } : {}),
    });
  }
  const c = atVerb(t, verb, ACCOUNT);
  if (!c) return classifyOther(t); // includes "credited … for reversal of UPI transaction"
  if (c[4].toUpperCase() !== 'UPI') return { kind: 'not_credit', reason: 'not_upi' };
  const rows = t.slice(c.index + c[0].length);
  const payerVpa = new RegExp(`^${VPA}$`).exec(labelled(rows, 'Payer VPA:', ACCOUNT_ROWS)?.slice(0, 200) ?? '')?.[0];
  if (isRefundPayer(payerVpa)) return { kind: 'not_credit', reason: 'refund' };
  const payerName = labelled(rows, 'Payer Name:', ACCOUNT_ROWS);
  const bad = counterpartyCheck(t, { payerName }, ACCOUNT_LABELS);
  if (bad) return bad;
  return credit({ mask: c[1], amount: c[2], date: c[3], utr: utrAfter(rows, RRN), ...(payerVpa ? { payerVpa } : {}), ...(payerName ? { payerName } : {}) });
}

export const kotak: BankParser = {
  id: 'kotak',
  senderDomains: ['kotak.bank.in', 'kotak.com'],
  parse,
};
