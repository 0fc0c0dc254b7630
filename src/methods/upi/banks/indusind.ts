import type { BankParser, ParseResult } from './bank.ts';
import { creditTowardsUpi } from './counterparty.ts';
import { atVerb, classifyOther, firstMoneyVerb } from './direction.ts';
import { AMOUNT, MASK, oneLine } from './text.ts';

// Reconstructed from the real debit (test/fixtures/upi-emails/README.md §1.7): "Your IndusInd Bank Account No. 15XXXXXX4321 has been Credited
// for INR 499.37 towards UPI/<utr>/CR/<NAME>/<IFSC>/<vpa>." The alert prints no date: headers give it.
const CREDIT = new RegExp(`Account No\\.? ${MASK} has been Credited for ${AMOUNT} towards `, 'i');
const AFTER_PATH = ['\\bThe (?:available )?balance', '\\bCall \\d', '\\bWarm Regards\\b', '\\bRegards\\b'];

function parse(text: string): ParseResult {
  const t = oneLine(text);
  const verb = firstMoneyVerb(t);
  if (!verb?.credit) return classifyOther(t);
  const c = atVerb(t, verb, CREDIT);
  if (!c) return classifyOther(t);
  return creditTowardsUpi(t, c, AFTER_PATH, { mask: c[1], amount: c[2] });
}

export const indusind: BankParser = {
  id: 'indusind',
  senderDomains: ['indusind.bank.in', 'indusind.com'],
  parse,
};
