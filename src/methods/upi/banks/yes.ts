import type { BankParser, ParseResult } from './bank.ts';
import { AMOUNT, DATE, MASK, TIME, classifyOther, credit, isRefundPayer, oneLine, upiInfo } from './text.ts';

// Placeholder wording (README §1.6, Low): "Your A/c XXXXXXXX4321 has been credited with INR 499.37 on
// 22-11-2026 07:45:11 towards UPI/<utr>/<vpa>/<NAME>. Avl Bal …"
const CREDIT = new RegExp(`Your A/c ${MASK} has been credited with ${AMOUNT} on ${DATE}(?:,? (?:at )?${TIME})? towards (\\S+)`, 'i');

function parse(text: string): ParseResult {
  const t = oneLine(text);
  const c = CREDIT.exec(t);
  if (!c) return classifyOther(t);
  if (!/^UPI\//i.test(c[5])) return { kind: 'not_credit', reason: 'not_upi' };
  const info = upiInfo(t.slice(c.index + c[0].length - c[5].length));
  if (isRefundPayer(info?.payerVpa)) return { kind: 'not_credit', reason: 'refund' };
  return credit({ mask: c[1], amount: c[2], date: c[3], time: c[4], ...info });
}

export const yes: BankParser = {
  id: 'yes',
  senderDomains: ['yes.bank.in', 'yesbank.in'],
  parse,
};
