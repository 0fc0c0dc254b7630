/**
 * Characters a merchant-supplied string must not carry into what people read (Telegram, e-mail,
 * the console, logs): C0/C1 controls and DEL (they corrupt logs and UPI deep links), the line and
 * paragraph separators U+2028/U+2029 (a second line the reader takes for payd's), and the
 * bidirectional embeddings, overrides, isolates and marks (U+202A–U+202E, U+2066–U+2069,
 * U+200E/U+200F, U+061C), which make "ORD-1" display as something else.
 */
const UNSHOWABLE = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;

/** The first such character as `U+XXXX`, or undefined when the text shows as it is stored. */
export function unshowableChar(s: string): string | undefined {
  const m = UNSHOWABLE.exec(s);
  return m ? `U+${m[0].charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}` : undefined;
}
