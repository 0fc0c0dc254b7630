import type { BankParser, ParseResult } from './bank.ts';
import { creditTowardsUpi } from './counterparty.ts';
import { atVerb, classifyOther, firstMoneyVerb } from './direction.ts';
import { AMOUNT, DATE, MASK, TIME, oneLine } from './text.ts';

// Placeholder wording (test/fixtures/upi-emails/README.md §1.6, Low): "Your A/c XXXXXXXX4321 has been credited with INR 499.37 on
// 22-11-2026 07:45:11 towards UPI/<utr>/<vpa>/<NAME>. Avl Bal …"
const CREDIT = new RegExp(`Your A/c ${MASK} has been credited with ${AMOUNT} on ${DATE}(?:,? (?:at )?${TIME})? towards `, 'i');
const AFTER_PATH = ['\\bAvl\\.? Bal', '\\bAvailable Balance', '\\bIf this transaction\\b', '\\bRegards\\b'];

function parse(text: string): ParseResult {
  const t = oneLine(text);
  const verb = firstMoneyVerb(t);
  if (!verb?.credit) return classifyOther(t);
  const c = atVerb(t, verb, CREDIT);
  if (!c) return classifyOther(t);
  return creditTowardsUpi(t, c, AFTER_PATH, { mask: c[1], amount: c[2], date: c[3], time: c[4] });
}

export const yes: BankParser = {
  id: 'yes',
  senderDomains: ['yes.bank.in', 'yesbank.in'],
  parse,
};
