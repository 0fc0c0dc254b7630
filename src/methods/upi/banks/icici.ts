import type { BankParser, ParseResult } from './bank.ts';
import { AMOUNT, DATE, MASK, classifyOther, credit, isRefundPayer, oneLine, upiInfo } from './text.ts';

// "Your ICICI Bank Account XX321 has been credited with INR 499.37 on 22-Nov-26. Info: UPI/<utr>/NAME/vpa."
// The "Info:" shape for UPI is [unconfirmed] (README §1.2): only "Info: UPI/…" counts as UPI.
const ACCOUNT = new RegExp(`ICICI Bank Account ${MASK} (?:has been|is) credited with ${AMOUNT} on ${DATE}\\.?\\s*Info:\\s*(.*)`, 'i');
// SMS-style wording also seen from ICICI: "Acct XX293 is credited with Rs 0.01 on 01-Aug-26 from NAME. UPI:103757250964-ICICI Bank."
const SHORT = new RegExp(`Acct ${MASK} is credited with ${AMOUNT} on ${DATE} from (.*?)\\. UPI:(\\d{12})(?!\\d)`, 'i');

function parse(text: string): ParseResult {
  const t = oneLine(text);
  const a = ACCOUNT.exec(t);
  if (a) {
    if (!/^UPI\//i.test(a[4])) return { kind: 'not_credit', reason: 'not_upi' }; // interest, NEFT…
    const info = upiInfo(a[4]);
    if (isRefundPayer(info?.payerVpa)) return { kind: 'not_credit', reason: 'refund' };
    return credit({ amount: a[2], mask: a[1], date: a[3], ...info });
  }
  const s = SHORT.exec(t);
  if (s) return credit({ amount: s[2], mask: s[1], date: s[3], payerName: s[4].trim() || undefined, utr: s[5] });
  return classifyOther(t);
}

export const icici: BankParser = {
  id: 'icici',
  senderDomains: ['icici.bank.in', 'icicibank.com'],
  parse,
};
