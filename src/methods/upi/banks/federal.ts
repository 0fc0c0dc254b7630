import type { BankParser, ParseResult } from './bank.ts';
import { counterpartyCheck, suspicion } from './counterparty.ts';
import { atVerb, classifyOther, firstMoneyVerb } from './direction.ts';
import { AMOUNT, DATE, MASK, TIME, VPA, credit, isRefundPayer, labelled, oneLine, utrAfter } from './text.ts';

// HTML part only (the text part is a placeholder). Wording [unconfirmed], test/fixtures/upi-emails/README.md §1.8:
// "Your Federal Bank A/c XX4321 has been credited with INR 499.37 on 22-11-2026 07:45:12 through UPI.
//  UPI Ref No: 632612345678. Remitter: ASHA VERMA (asha.verma@okaxis)."
const CREDIT = new RegExp(`Federal Bank A/c ${MASK} has been credited with ${AMOUNT} on ${DATE}(?: ${TIME})?(?: through (\\w{1,20}))?`, 'i');
const ROWS = ['UPI Ref(?:erence)?\\.? No', '- Federal Bank', '\\bRegards\\b', '\\bThank you\\b'];
// The remitter's name, then the VPA the bank prints in brackets.
const REMITTER = new RegExp(`^(.*?)\\s*\\((${VPA})\\)\\.?$`, 'i');

function parse(text: string): ParseResult {
  const t = oneLine(text);
  const verb = firstMoneyVerb(t);
  if (!verb?.credit) return classifyOther(t);
  const c = atVerb(t, verb, CREDIT);
  if (!c) return classifyOther(t);
  if ((c[5] ?? '').toUpperCase() !== 'UPI') return { kind: 'not_credit', reason: 'not_upi' };
  const rows = t.slice(c.index + c[0].length);
  const remitter = labelled(rows, 'Remitter:', ROWS);
  const r = remitter && suspicion(remitter) !== 'too_long' ? REMITTER.exec(remitter) : null;
  if (isRefundPayer(r?.[2])) return { kind: 'not_credit', reason: 'refund' };
  const payerName = r ? r[1] || undefined : remitter;
  const bad = counterpartyCheck(t, { payerName }, [/Remitter:/gi]);
  if (bad) return bad;
  return credit({
    mask: c[1],
    amount: c[2],
    date: c[3],
    time: c[4],
    utr: utrAfter(rows, 'UPI Ref(?:erence)?\\.? No\\.?\\s*:?'),
    ...(payerName ? { payerName } : {}),
    ...(r ? { payerVpa: r[2] } : {}),
  });
}

export const federal: BankParser = {
  id: 'federal',
  senderDomains: ['federal.bank.in', 'federalbank.co.in'],
  parse,
};
