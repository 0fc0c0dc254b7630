import type { BankId } from '../alert.ts';
import { axis } from './axis.ts';
import type { BankParser } from './bank.ts';
import { federal } from './federal.ts';
import { hdfc } from './hdfc.ts';
import { icici } from './icici.ts';
import { indusind } from './indusind.ts';
import { kotak } from './kotak.ts';
import { sbi } from './sbi.ts';
import { yes } from './yes.ts';

export const BANKS: readonly BankParser[] = [hdfc, icici, sbi, axis, kotak, yes, indusind, federal];

export function bankById(id: BankId): BankParser {
  const bank = BANKS.find((b) => b.id === id);
  if (!bank) throw new Error(`unknown bank ${id}`);
  return bank;
}

/** Exact domain or a subdomain of it: `alerts.sbi.bank.in` is SBI, `hdfcbank.net.evil.com` is nobody. */
export function domainWithin(domain: string, allowed: readonly string[]): boolean {
  const d = domain.toLowerCase().replace(/\.$/, '');
  return allowed.some((a) => d === a || d.endsWith('.' + a));
}

/** The bank whose sender domains contain this address's domain. */
export function bankForAddress(address: string): BankParser | undefined {
  const at = address.lastIndexOf('@');
  if (at < 0) return undefined;
  const domain = address.slice(at + 1);
  return BANKS.find((b) => domainWithin(domain, b.senderDomains));
}
