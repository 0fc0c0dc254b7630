import type { BankParser, ParseResult } from './bank.ts';
import { counterpartyCheck } from './counterparty.ts';
import { atVerb, classifyOther, firstMoneyVerb } from './direction.ts';
import { AMOUNT, DATE, MASK, credit, oneLine } from './text.ts';

// "Your A/C XXXXX654321 has a credit by transfer of Rs 499.37 on 22/11/26. Avl Bal Rs …" (CBS alert).
// No UTR, VPA, payer or time: the inspector derives a stable id and takes the time from the headers.
const CREDIT = new RegExp(`Your A/C ${MASK} has a credit by (\\w{1,20}(?: \\w{1,20})?) of ${AMOUNT} on ${DATE}`, 'i');

function parse(text: string): ParseResult {
  const t = oneLine(text);
  const verb = firstMoneyVerb(t);
  if (!verb?.credit) return classifyOther(t);
  const c = atVerb(t, verb, CREDIT);
  if (!c) return classifyOther(t);
  // "by transfer" is how UPI/IMPS credits read; cash, NEFT, interest… are not customer UPI payments.
  if (c[2].toLowerCase() !== 'transfer') return { kind: 'not_credit', reason: 'not_upi' };
  const bad = counterpartyCheck(t, {});
  if (bad) return bad;
  return credit({ mask: c[1], amount: c[3], date: c[4] }, { utrRequired: false });
}

export const sbi: BankParser = {
  id: 'sbi',
  senderDomains: ['sbi.bank.in', 'sbi.co.in'],
  parse,
};
