import type { BankParser, ParseResult } from './bank.ts';
import { counterpartyCheck, upiPath } from './counterparty.ts';
import { atVerb, classifyOther, firstMoneyVerb } from './direction.ts';
import { AMOUNT, DATE, MASK, TIME, credit, isRefundPayer, oneLine, until } from './text.ts';

// Placeholder wording (README §1.6, Low): "Your A/c XXXXXXXX4321 has been credited with INR 499.37 on
// 22-11-2026 07:45:11 towards UPI/<utr>/<vpa>/<NAME>. Avl Bal …"
const CREDIT = new RegExp(`Your A/c ${MASK} has been credited with ${AMOUNT} on ${DATE}(?:,? (?:at )?${TIME})? towards `, 'i');
const AFTER_PATH = ['\\bAvl\\.? Bal', '\\bAvailable Balance', '\\bIf this transaction\\b', '\\bRegards\\b'];

function parse(text: string): ParseResult {
  const t = oneLine(text);
  const verb = firstMoneyVerb(t);
  if (!verb?.credit) return classifyOther(t);
  const c = atVerb(t, verb, CREDIT);
  if (!c) return classifyOther(t);
  const towards = t.slice(c.index + c[0].length);
  if (!/^UPI\//i.test(towards)) return { kind: 'not_credit', reason: 'not_upi' };
  const path = upiPath(towards, (rest) => until(rest, AFTER_PATH));
  if (!path) return { kind: 'unparseable', reason: 'no_utr' };
  if (isRefundPayer(path.payerVpa)) return { kind: 'not_credit', reason: 'refund' };
  const bad = counterpartyCheck(t, { counterparty: path.counterparty });
  if (bad) return bad;
  return credit({ mask: c[1], amount: c[2], date: c[3], time: c[4], utr: path.utr, ...(path.payerVpa ? { payerVpa: path.payerVpa } : {}), ...(path.payerName ? { payerName: path.payerName } : {}) });
}

export const yes: BankParser = {
  id: 'yes',
  senderDomains: ['yes.bank.in', 'yesbank.in'],
  parse,
};
