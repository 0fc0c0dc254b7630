import type { BankParser, ParseResult } from './bank.ts';
import { counterpartyCheck, suspicion } from './counterparty.ts';
import { atVerb, classifyOther, firstMoneyVerb } from './direction.ts';
import { AMOUNT, DATE, MASK, VPA, credit, isRefundPayer, labelled, oneLine, utrAfter } from './text.ts';

// Templates: test/fixtures/upi-emails/REAL-2026.md E-01 (legacy), E-02 (2026 "Transaction Details"), E-03 (older "from VPA").
// 2026: "… Rs.2000.00 has been successfully credited to your HDFC Bank account ending in 4477.Transaction Details:
// a. Date: 22-05-26 b. Sender: NAME (VPA: x@y) c. UPI Reference No.: 900000000002" — after HTML flattening the
// sentences may be glued together, so the rows are read by their labels.
const NEW = new RegExp(`${AMOUNT} has been (?:successfully )?credited to your HDFC Bank account ending (?:in )?${MASK}(?!\\d)`, 'i');
const NEW_ROWS = ['\\b[a-d]\\. (?:Date|Sender|UPI Reference)', 'UPI Reference No', '\\bNeed Help\\?', '\\bThank you\\b', '\\bWarm Regards\\b'];
const NEW_LABELS = [/\bSender:/gi, /\bDate:/gi, /\(VPA:/gi, /Transaction Details/gi];
// The payer's name, then the VPA the bank prints in brackets.
const SENDER = new RegExp(`^(.*?)\\s*\\(VPA:\\s*(${VPA})\\)$`, 'i');
// Legacy: "Rs. 200.00 is successfully credited to your account **0682 by VPA x@y [NAME] on 30-11-25." and the
// older "Rs.X has been credited to account XXXX from VPA x@y NAME on dd-mm-yy.", then the reference sentence.
const LEGACY = new RegExp(`${AMOUNT} (?:is|has been) (?:successfully )?credited to (?:your )?account ${MASK} (?:by|from) VPA (${VPA})`, 'i');
const REFERENCE = 'reference (?:number|no\\.?)\\s*(?:is|:)?';
// The bank's sentence after the name: " NAME on 22-11-26." ends where the reference sentence starts.
const LEGACY_TAIL = new RegExp(`^(.*?)\\s*\\bon ${DATE}\\.?$`, 'i');

function parse(text: string): ParseResult {
  const t = oneLine(text);
  const verb = firstMoneyVerb(t);
  if (!verb?.credit) return classifyOther(t);
  const n = atVerb(t, verb, NEW);
  if (n) {
    const rows = t.slice(n.index + n[0].length);
    const sender = labelled(rows, 'Sender:', NEW_ROWS);
    const s = sender && sender.length <= 300 ? SENDER.exec(sender) : null;
    const payerVpa = s?.[2];
    if (isRefundPayer(payerVpa)) return { kind: 'not_credit', reason: 'refund' };
    const payerName = s ? s[1] || undefined : sender;
    const bad = counterpartyCheck(t, { payerName }, NEW_LABELS);
    if (bad) return bad;
    return credit({
      amount: n[1],
      mask: n[2],
      utr: utrAfter(rows, 'UPI Reference No\\.?\\s*:?') ?? utrAfter(rows, REFERENCE),
      date: new RegExp(`\\bDate:\\s*${DATE}`, 'i').exec(rows)?.[1],
      ...(payerVpa ? { payerVpa } : {}),
      ...(payerName ? { payerName } : {}),
    });
  }
  const l = atVerb(t, verb, LEGACY);
  if (!l) return classifyOther(t);
  if (isRefundPayer(l[3])) return { kind: 'not_credit', reason: 'refund' };
  // Name and date run from the VPA to the bank's reference sentence.
  const after = t.slice(l.index + l[0].length);
  const ref = /\.?\s*(?:Your )?(?:UPI transaction )?reference (?:number|no)/i.exec(after);
  if (!ref) return { kind: 'unparseable', reason: 'no_utr' };
  const tail = after.slice(0, ref.index).trim();
  const why = suspicion(tail);
  if (why === 'too_long') return { kind: 'suspicious', field: 'payerName', why };
  const m = LEGACY_TAIL.exec(tail);
  const payerName = m ? m[1].trim() || undefined : tail || undefined;
  const bad = counterpartyCheck(t, { payerName });
  if (bad) return bad;
  if (!m) return { kind: 'unparseable', reason: 'no_date' };
  return credit({ amount: l[1], mask: l[2], payerVpa: l[3], ...(payerName ? { payerName } : {}), date: m[2], utr: utrAfter(after, REFERENCE) });
}

export const hdfc: BankParser = {
  id: 'hdfc',
  senderDomains: ['hdfcbank.bank.in', 'hdfcbank.net'],
  marketingSenders: ['information'],
  parse,
};
