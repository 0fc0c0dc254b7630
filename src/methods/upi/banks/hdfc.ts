import type { BankParser, ParseResult } from './bank.ts';
import { AMOUNT, DATE, MASK, VPA, classifyOther, credit, isRefundPayer, labelled, oneLine, utrAfter } from './text.ts';

// Templates: REAL-2026.md E-01 (legacy), E-02 (2026 "Transaction Details"), E-03 (older "from VPA").
// 2026: "… Rs.2000.00 has been successfully credited to your HDFC Bank account ending in 4477.Transaction Details:
// a. Date: 22-05-26 b. Sender: NAME (VPA: x@y) c. UPI Reference No.: 900000000002" — after HTML flattening the
// sentences may be glued together, so the rows are read by their labels.
const NEW = new RegExp(`${AMOUNT} has been (?:successfully )?credited to your HDFC Bank account ending (?:in )?${MASK}(?!\\d)`, 'i');
const NEW_ROWS = ['\\b[a-d]\\. (?:Date|Sender|UPI Reference)', '\\bNeed Help\\?', '\\bThank you\\b', '\\bWarm Regards\\b'];
// Legacy: "Rs. 200.00 is successfully credited to your account **0682 by VPA x@y [NAME] on 30-11-25." and the
// older "Rs.X has been credited to account XXXX from VPA x@y NAME on dd-mm-yy."
const LEGACY = new RegExp(`${AMOUNT} (?:is|has been) (?:successfully )?credited to (?:your )?account ${MASK} (?:by|from) VPA (${VPA})(.*?) on ${DATE}`, 'i');
const REFERENCE = 'reference (?:number|no\\.?)\\s*(?:is|:)?';

function parse(text: string): ParseResult {
  const t = oneLine(text);
  const n = NEW.exec(t);
  if (n) {
    const sender = labelled(t, 'Sender:', NEW_ROWS);
    const s = sender ? new RegExp(`^(.*?)\\s*\\(VPA:\\s*(${VPA})\\)`, 'i').exec(sender) : null;
    const payerVpa = s?.[2];
    if (isRefundPayer(payerVpa)) return { kind: 'not_credit', reason: 'refund' };
    return credit({
      amount: n[1],
      mask: n[2],
      utr: utrAfter(t, 'UPI Reference No\\.?\\s*:?') ?? utrAfter(t, REFERENCE),
      date: new RegExp(`\\bDate:\\s*${DATE}`, 'i').exec(t)?.[1],
      payerVpa,
      payerName: s?.[1] || undefined,
    });
  }
  const l = LEGACY.exec(t);
  if (l) {
    if (isRefundPayer(l[3])) return { kind: 'not_credit', reason: 'refund' };
    return credit({ amount: l[1], mask: l[2], payerVpa: l[3], payerName: l[4].trim() || undefined, date: l[5], utr: utrAfter(t, REFERENCE) });
  }
  // Everything else, including the RuPay "debited … and credited to VPA" alert, is read by its first money sentence.
  return classifyOther(t);
}

export const hdfc: BankParser = {
  id: 'hdfc',
  senderDomains: ['hdfcbank.bank.in', 'hdfcbank.net'],
  marketingSenders: ['information'],
  parse,
};
