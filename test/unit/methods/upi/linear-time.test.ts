// Every pattern the bank parsers run on mail text is linear in its length. A stranger's
// 220 KB `Info: UPI/123456789012/aaaa…` (no `@`) blocked the event loop for 70 s; here every parser gets
// ~1 MB adversarial inputs (long runs of one character in each template's free-text field, each
// template's prefix repeated) and must return within LIMIT_MS. Sizes double up to 1 MB so that a
// quadratic pattern fails in seconds at the small sizes instead of running for minutes.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { BankId } from '../../../../src/methods/upi/alert.ts';
import { BANKS, bankById } from '../../../../src/methods/upi/banks/index.ts';
import { CREDITS, DEBITS, NAME, type Template } from './bank-templates.ts';

/**
 * CPU time per parse of ≤ 1 MiB (process.cpuUsage: the machine running the tests may be shared, and
 * wall time then measures the neighbours). Linear parsing takes tens of ms at 1 MiB; the quadratic
 * VPA pattern took ~1 s at 20 KB and ~70 s at 220 KB.
 */
const LIMIT_MS = 200;
/** Every template × filler runs at SMALL sizes; a few fillers per template at 1 MiB (each is a few hundred MB of parsing in all). */
const SMALL = [16 << 10, 128 << 10];
const LARGE = [1 << 20];
/** The prefix sweep (~1,000 prefixes) runs at 32 KiB: a quadratic pattern costs seconds there already. */
const SWEEP = [32 << 10];
const fill = (unit: string, n: number) => unit.repeat(Math.ceil(n / unit.length)).slice(0, n);

const SBI: Template = { bank: 'sbi', name: 'SBI CBS credit', body: (f) => `Dear Customer, Your A/C XXXXX654321 has a credit by transfer of Rs 1.00 on 22/11/26. Avl Bal Rs ${f}.-SBI` };
const TEMPLATES: Template[] = [...CREDITS, ...DEBITS, SBI];
/** Characters that keep a pattern's quantifier going without ever completing a match. */
const FILLERS = ['a', '1', 'a ', 'a/', '/', '@', 'a@', 'x.', 'X', 'X1', '(', '( ', 'Rs', 'Rs 1', 'Rs.1,', 'INR ', 'UPI/123456789012/', '. ', ' on ', '1-1-', ':', 'a.b-c_', '*'];

function cpuMs(bank: BankId, text: string, subject = ''): number {
  const t0 = process.cpuUsage();
  bankById(bank).parse(text, subject);
  const d = process.cpuUsage(t0);
  return (d.user + d.system) / 1000;
}

/** Runs `make(n)` through the banks at each size; the first size with a slow parse ends the check. */
function overLimit(label: string, make: (n: number) => string, banks: readonly BankId[], subject = '', sizes = [...SMALL, ...LARGE]): string[] {
  for (const n of sizes) {
    const text = make(n);
    const slow = banks.map((b) => [b, cpuMs(b, text, subject)] as const).filter(([, ms]) => ms > LIMIT_MS);
    if (slow.length) return slow.map(([b, ms]) => `${label} @${n} B: ${b} ${ms.toFixed(0)} ms`);
  }
  return [];
}

describe('bank parsers are linear-time on adversarial mail text', () => {
  const all = BANKS.map((b) => b.id);

  it('the input a VPA pattern was once quadratic on: Info: UPI/123456789012/aaaa… with no @, to every bank', () => {
    assert.deepEqual(overLimit('UPI path', (n) => `Your ICICI Bank Account XX321 has been credited with INR 5.00 on 22-Nov-26. Info: UPI/123456789012/${fill('a', n)}`, all), []);
    assert.deepEqual(overLimit('bare UPI path', (n) => `Info: UPI/123456789012/${fill('a', n)}`, all), []);
  });

  it('every template with a long run of one character in its free-text field', () => {
    const slow: string[] = [];
    for (const t of TEMPLATES) for (const u of FILLERS) slow.push(...overLimit(`${t.name} / ${JSON.stringify(u)}`, (n) => t.body(fill(u, n)), [t.bank], t.subject, SMALL));
    assert.deepEqual(slow, []); // before 1 MiB: a quadratic pattern would take minutes there
    const large: string[] = [];
    for (const t of TEMPLATES) for (const u of ['a', 'a ', '. ', 'a/', '( ', 'Rs 1', 'UPI/123456789012/']) large.push(...overLimit(`${t.name} / ${JSON.stringify(u)}`, (n) => t.body(fill(u, n)), [t.bank], t.subject, LARGE));
    assert.deepEqual(large, []);
  });

  it('every prefix of every template, repeated, and followed by each filler', () => {
    const slow: string[] = [];
    for (const t of TEMPLATES) {
      const text = t.body(NAME);
      const cuts = [...text.matchAll(/[ \n/:(]/g)].map((m) => m.index! + 1);
      for (const cut of cuts) {
        const prefix = text.slice(0, cut);
        slow.push(...overLimit(`${t.name} prefix ×`, (n) => fill(prefix, n), [t.bank], t.subject, SWEEP));
        for (const u of ['a', '1', 'X', '@', 'a/', '. ']) slow.push(...overLimit(`${t.name} prefix + ${u}…`, (n) => prefix + fill(u, n), [t.bank], t.subject, SWEEP));
      }
    }
    assert.deepEqual(slow, []);
  });

  it("each bank's texts through every other bank's parser", () => {
    const slow: string[] = [];
    for (const t of TEMPLATES) slow.push(...overLimit(`${t.name} ×`, (n) => fill(t.body(NAME) + ' ', n), all, t.subject, [128 << 10, 1 << 20]));
    assert.deepEqual(slow, []);
  });
});
