import type { AddressObject } from 'mailparser';

/** Every address in a parsed address header (groups flattened), as written. */
export function addressList(obj: AddressObject | AddressObject[] | undefined): string[] {
  const out: string[] = [];
  const walk = (list: { address?: string; group?: unknown[] }[]) => {
    for (const a of list) {
      if (a.address) out.push(a.address);
      if (Array.isArray(a.group)) walk(a.group as { address?: string }[]);
    }
  };
  for (const o of obj === undefined ? [] : Array.isArray(obj) ? obj : [obj]) walk(o.value);
  return out;
}
