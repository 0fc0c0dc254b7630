import type { BankParser, ParseResult } from './bank.ts';
import { counterpartyCheck, upiPath } from './counterparty.ts';
import { atVerb, classifyOther, firstMoneyVerb } from './direction.ts';
import { AMOUNT, DATE, MASK, credit, isRefundPayer, oneLine, until } from './text.ts';

// "Your ICICI Bank Account XX321 has been credited with INR 499.37 on 22-Nov-26. Info: UPI/<utr>/NAME/vpa."
// The "Info:" shape for UPI is [unconfirmed] (test/fixtures/upi-emails/README.md §1.2): only "Info: UPI/…" counts as UPI.
const ACCOUNT = new RegExp(`ICICI Bank Account ${MASK} (?:has been|is) credited with ${AMOUNT} on ${DATE}\\.?\\s*Info:\\s*`, 'i');
// The bank's sentences after the Info path.
const AFTER_INFO = ['\\bThe Available Balance', '\\bAvailable Bal', '\\bAvl\\.? Bal', '\\bSincerely\\b', '\\bRegards\\b'];
// SMS-style wording also seen from ICICI: "Acct XX293 is credited with Rs 0.01 on 01-Aug-26 from NAME. UPI:103757250964-ICICI Bank."
const SHORT = new RegExp(`Acct ${MASK} is credited with ${AMOUNT} on ${DATE} from `, 'i');
const SHORT_UTR = /\.\s*UPI:(\d{12})(?!\d)/i;

function parse(text: string): ParseResult {
  const t = oneLine(text);
  const verb = firstMoneyVerb(t);
  if (!verb?.credit) return classifyOther(t);
  const a = atVerb(t, verb, ACCOUNT);
  if (a) {
    const info = t.slice(a.index + a[0].length);
    if (!/^UPI\//i.test(info)) return { kind: 'not_credit', reason: 'not_upi' }; // interest, NEFT…
    const path = upiPath(info, (rest) => until(rest, AFTER_INFO));
    if (!path) return { kind: 'unparseable', reason: 'no_utr' };
    if (isRefundPayer(path.payerVpa)) return { kind: 'not_credit', reason: 'refund' };
    const bad = counterpartyCheck(t, { counterparty: path.counterparty }, [/\bInfo:/gi]);
    if (bad) return bad;
    return credit({ amount: a[2], mask: a[1], date: a[3], utr: path.utr, ...(path.payerVpa ? { payerVpa: path.payerVpa } : {}), ...(path.payerName ? { payerName: path.payerName } : {}) });
  }
  const s = atVerb(t, verb, SHORT);
  if (!s) return classifyOther(t);
  // The name runs to the bank's ". UPI:<utr>"; one more "UPI:" in it is caught as a repeated label.
  const after = t.slice(s.index + s[0].length);
  const u = SHORT_UTR.exec(after);
  if (!u) return { kind: 'unparseable', reason: 'no_utr' };
  const payerName = after.slice(0, u.index).trim() || undefined;
  const bad = counterpartyCheck(t, { payerName });
  if (bad) return bad;
  return credit({ amount: s[2], mask: s[1], date: s[3], utr: u[1], ...(payerName ? { payerName } : {}) });
}

export const icici: BankParser = {
  id: 'icici',
  senderDomains: ['icici.bank.in', 'icicibank.com'],
  parse,
};
