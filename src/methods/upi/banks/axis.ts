import type { BankParser, ParseResult } from './bank.ts';
import { AMOUNT, DATE, MASK, TIME, classifyOther, credit, isRefundPayer, lineAfter, oneLine, upiInfo } from './text.ts';

// HTML table, flattened: "Amount Credited: INR 500.00 / Account Number: XX6386 / Date & Time: 09-08-26, 19:22:28 IST /
// Transaction Info: UPI/P2A/622155323152/NAME". Labels and values may be on separate lines.
const TABLE = new RegExp(`Amount Credited:\\s*${AMOUNT}`, 'i');
// Prose (REAL-2026.md E-06): "your A/c no. XX2804 has been credited with INR 26380.00 on 24-10-2025 at 02:03:02 IST
// by NEFT/CITIN25643200622/SAP ." — UPI only when the "by" path starts with UPI/.
const SENTENCE = new RegExp(`A/c no\\.? ${MASK} has been credited with ${AMOUNT} on ${DATE}(?: at ${TIME})?(?: IST)?(?: by (\\S+))?`, 'i');

function parse(text: string, subject: string): ParseResult {
  const t = oneLine(text);
  const table = TABLE.exec(t);
  const sentence = table ? null : SENTENCE.exec(t);
  if (!table && !sentence) return classifyOther(t);
  // The subject repeats the direction ("INR 110.00 was debited from your A/c"); disagreement means a template we do not know.
  if (/\bwas debited\b/i.test(subject)) return { kind: 'unparseable', reason: 'direction_conflict' };
  const infoText = lineAfter(text, 'Transaction Info:') ?? /Transaction Info:\s*(\S+(?: \S+)*)/i.exec(text)?.[1] ?? t;
  if (table && !/UPI\//i.test(infoText)) return { kind: 'not_credit', reason: 'not_upi' };
  if (/\/REV(?:ERSAL)?\//i.test(infoText)) return { kind: 'not_credit', reason: 'reversal' };
  const info = upiInfo(infoText.includes('UPI/') ? infoText : t);
  if (isRefundPayer(info?.payerVpa)) return { kind: 'not_credit', reason: 'refund' };
  if (table) {
    const when = new RegExp(`Date & Time:\\s*${DATE},?\\s*${TIME}?`, 'i').exec(t);
    return credit({
      amount: table[1],
      mask: new RegExp(`Account Number:\\s*${MASK}\\b`, 'i').exec(t)?.[1] ?? '',
      date: when?.[1],
      time: when?.[2],
      ...info,
    });
  }
  const s = sentence!;
  if (!/^UPI\//i.test(s[5] ?? '')) return { kind: 'not_credit', reason: 'not_upi' };
  return credit({ mask: s[1], amount: s[2], date: s[3], time: s[4], ...upiInfo(t.slice(s.index + s[0].length - s[5]!.length)) });
}

export const axis: BankParser = {
  id: 'axis',
  senderDomains: ['axis.bank.in', 'axisbank.com'],
  parse,
};
