import type { BankParser, ParseResult } from './bank.ts';
import { counterpartyCheck, upiPath } from './counterparty.ts';
import { atVerb, classifyOther, firstMoneyVerb } from './direction.ts';
import { AMOUNT, DATE, MASK, TIME, credit, isRefundPayer, lineValue, oneLine, toPaise, until } from './text.ts';

// Card (HTML table, flattened): "INR 500.00 was credited to your A/c." then "Amount Credited: INR 500.00 /
// Account Number: XX6386 / Date & Time: 09-08-26, 19:22:28 IST / Transaction Info: UPI/P2A/622155323152/NAME".
// Labels and values may be on separate lines. The first money words are the headline or the amount label.
const HEADLINE = new RegExp(`${AMOUNT} was credited to your A/c`, 'i');
const TABLE = new RegExp(`Amount Credited:\\s*${AMOUNT}`, 'i');
const TABLE_LABELS = [/Amount Credited/gi, /Account Number/gi, /Date & Time/gi, /Transaction Info/gi];
const AFTER_TABLE = ['\\bFeel free\\b', '\\bRegards\\b', '\\bIf this transaction\\b', '\\bAlways open\\b'];
// Prose (test/fixtures/upi-emails/REAL-2026.md E-06): "your A/c no. XX2804 has been credited with INR 26380.00 on 24-10-2025 at 02:03:02 IST
// by NEFT/CITIN25643200622/SAP ." — UPI only when the "by" path starts with UPI/.
const SENTENCE = new RegExp(`A/c no\\.? ${MASK} has been credited with ${AMOUNT} on ${DATE}(?: at ${TIME})?(?: IST)? by `, 'i');
const AFTER_SENTENCE = ['\\s\\.(?:\\s|$)', '\\bTo check your\\b', '\\bRegards\\b'];

function parse(text: string, subject: string): ParseResult {
  const t = oneLine(text);
  const verb = firstMoneyVerb(t);
  if (!verb?.credit) return classifyOther(t);
  const prose = atVerb(t, verb, SENTENCE);
  const head = prose ? null : atVerb(t, verb, HEADLINE);
  const table = prose ? null : atVerb(t, verb, TABLE) ?? (head ? TABLE.exec(t) : null);
  if (!prose && !table) return classifyOther(t);
  // The subject repeats the direction ("INR 110.00 was debited from your A/c"); disagreement means a template we do not know.
  if (/\bwas debited\b/i.test(subject)) return { kind: 'unparseable', reason: 'direction_conflict' };
  if (prose) {
    const info = t.slice(prose.index + prose[0].length);
    if (!/^UPI\//i.test(info)) return { kind: 'not_credit', reason: 'not_upi' };
    const path = upiPath(info, (rest) => until(rest, AFTER_SENTENCE));
    if (/\/REV(?:ERSAL)?\//i.test(path?.counterparty ?? '')) return { kind: 'not_credit', reason: 'reversal' };
    if (!path) return { kind: 'unparseable', reason: 'no_utr' };
    if (isRefundPayer(path.payerVpa)) return { kind: 'not_credit', reason: 'refund' };
    const bad = counterpartyCheck(t, { counterparty: path.counterparty });
    if (bad) return bad;
    return credit({ mask: prose[1], amount: prose[2], date: prose[3], time: prose[4], utr: path.utr, ...(path.payerName ? { payerName: path.payerName } : {}) });
  }
  const infoText = lineValue(text, 'Transaction Info:') ?? '';
  if (!/^UPI\//i.test(infoText)) return { kind: 'not_credit', reason: 'not_upi' };
  if (/\/REV(?:ERSAL)?\//i.test(infoText)) return { kind: 'not_credit', reason: 'reversal' };
  const path = upiPath(infoText, (rest) => until(rest, AFTER_TABLE));
  if (!path) return { kind: 'unparseable', reason: 'no_utr' };
  if (isRefundPayer(path.payerVpa)) return { kind: 'not_credit', reason: 'refund' };
  const bad = counterpartyCheck(t, { counterparty: path.counterparty }, TABLE_LABELS);
  if (bad) return bad;
  // The headline is the bank's too: its amount must be the table's.
  if (head && toPaise(head[1]) !== toPaise(table![1])) return { kind: 'unparseable', reason: 'amount_conflict' };
  const when = new RegExp(`Date & Time:\\s*${DATE},?\\s*${TIME}?`, 'i').exec(t);
  return credit({
    amount: table![1],
    mask: new RegExp(`Account Number:\\s*${MASK}\\b`, 'i').exec(t)?.[1] ?? '',
    date: when?.[1],
    time: when?.[2],
    utr: path.utr,
    ...(path.payerName ? { payerName: path.payerName } : {}),
  });
}

export const axis: BankParser = {
  id: 'axis',
  senderDomains: ['axis.bank.in', 'axisbank.com'],
  parse,
};
