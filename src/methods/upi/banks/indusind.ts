import type { BankParser, ParseResult } from './bank.ts';
import { AMOUNT, MASK, classifyOther, credit, isRefundPayer, oneLine, upiInfo } from './text.ts';

// Reconstructed from the real debit (README §1.7): "Your IndusInd Bank Account No. 15XXXXXX4321 has been Credited
// for INR 499.37 towards UPI/<utr>/CR/<NAME>/<IFSC>/<vpa>." The alert prints no date: headers give it.
const CREDIT = new RegExp(`Account No\\.? ${MASK} has been Credited for ${AMOUNT} towards (\\S+)`, 'i');

function parse(text: string): ParseResult {
  const t = oneLine(text);
  const c = CREDIT.exec(t);
  if (!c) return classifyOther(t);
  if (!/^UPI\//i.test(c[3])) return { kind: 'not_credit', reason: 'not_upi' };
  const info = upiInfo(t.slice(c.index + c[0].length - c[3].length));
  if (isRefundPayer(info?.payerVpa)) return { kind: 'not_credit', reason: 'refund' };
  return credit({ mask: c[1], amount: c[2], ...info });
}

export const indusind: BankParser = {
  id: 'indusind',
  senderDomains: ['indusind.bank.in', 'indusind.com'],
  parse,
};
