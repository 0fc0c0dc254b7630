/**
 * Whether an alert's masked account ("XX4321", "15XXXXXX4321") can be the configured account:
 * every digit both sides show must agree. The alert shows the last 3–6 digits (ICICI only 3) and
 * IndusInd the first two as well; the operator configured the last 3–6 digits or the whole number.
 * Pure and light: the silence check reads recorded alerts with it, without the mail parsers.
 */
export function maskMatches(mask: string, accountEnding: string): boolean {
  const shown = trailingDigits(mask);
  const lead = /^(\d+)[Xx*]/.exec(mask)?.[1];
  if (shown.length < 3) return false;
  const tail = shown.length >= accountEnding.length ? shown.endsWith(accountEnding) : accountEnding.endsWith(shown);
  if (!tail) return false;
  // A whole number configured: the leading digits the mask shows, and its length, must be the account's too.
  if (lead && accountEnding.length >= mask.length) return accountEnding.length === mask.length && accountEnding.startsWith(lead);
  return true;
}

/** The digits a mask ends with (a loop: /(\d+)$/ is quadratic on a long run of digits). */
function trailingDigits(mask: string): string {
  let i = mask.length;
  while (i > 0 && mask.charCodeAt(i - 1) >= 48 && mask.charCodeAt(i - 1) <= 57) i--;
  return mask.slice(i);
}
