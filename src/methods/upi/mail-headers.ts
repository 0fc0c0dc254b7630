/**
 * The sender of a raw message, read from its header block alone, before any body is fetched or
 * parsed. Everything here is linear in the input (indexOf, split on a character class): a header
 * block is attacker-controlled text.
 */
import type { BankParser } from './banks/bank.ts';
import { bankForAddress } from './banks/index.ts';

/** The header block of a raw message (up to the first empty line); undefined when it does not end within `raw`. */
export function headerBlock(raw: Buffer): string | undefined {
  const crlf = raw.indexOf('\r\n\r\n');
  const lf = raw.indexOf('\n\n');
  const ends = [crlf, lf].filter((i) => i >= 0);
  if (ends.length === 0) return undefined;
  return raw.subarray(0, Math.min(...ends)).toString('latin1');
}

/** Separators around an address on a From line; an address is a run without them that holds an `@`. */
const SEPARATORS = /[\s<>"',;:()]+/;

/** Addresses on every From line of a header block (duplicates kept in order: a prepended From counts too). */
export function fromLineAddresses(head: string): string[] {
  const out: string[] = [];
  for (const line of unfolded(head)) {
    const colon = line.indexOf(':');
    if (colon < 0 || line.slice(0, colon).trim().toLowerCase() !== 'from') continue;
    for (const token of line.slice(colon + 1).split(SEPARATORS)) {
      // As /[^sep]+@[^sep]+/ matched: an @ with something before it and something after it.
      const at = token.indexOf('@', 1);
      if (at > 0 && at < token.length - 1) out.push(token);
    }
  }
  return out;
}

/** Header lines with their continuation lines joined (RFC 5322 §2.2.3). */
function unfolded(head: string): string[] {
  const lines: string[] = [];
  for (const raw of head.split('\n')) {
    const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    if ((line.startsWith(' ') || line.startsWith('\t')) && lines.length > 0) lines[lines.length - 1] += ' ' + line.trim();
    else lines.push(line);
  }
  return lines;
}

/** The first bank any From line names, among the banks the operator receives payments at. */
export function senderBank(addresses: string[], banks: readonly string[]): BankParser | undefined {
  for (const a of addresses) {
    const bank = bankForAddress(a);
    if (bank && banks.includes(bank.id)) return bank;
  }
  return undefined;
}
