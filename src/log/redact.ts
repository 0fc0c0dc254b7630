/** Field names whose values never reach a log line. */
const SECRET_KEY = /secret|password|passwd|token|api[-_]?key|authorization|signature|masterkey/i;

export function redact(fields: Record<string, unknown>, isSecret: (key: string) => boolean = (k) => SECRET_KEY.test(k)): Record<string, unknown> {
  // Most entries (every request line) need no change: hand them on without a copy.
  let clean = true;
  for (const k in fields) {
    const v = fields[k];
    if (isSecret(k) || typeof v === 'bigint' || v instanceof Error) {
      clean = false;
      break;
    }
  }
  if (clean) return fields;
  const out: Record<string, unknown> = {};
  for (const k in fields) {
    const v = fields[k];
    if (isSecret(k)) out[k] = '[redacted]';
    else if (typeof v === 'bigint') out[k] = v.toString();
    else if (v instanceof Error) out[k] = v.message;
    else out[k] = v;
  }
  return out;
}

/** `redact` remembering each field name's verdict: names come from code, so they are few. */
export function memoRedact(): (fields: Record<string, unknown>) => Record<string, unknown> {
  const verdicts = new Map<string, boolean>();
  const isSecret = (k: string): boolean => {
    let secret = verdicts.get(k);
    if (secret === undefined) {
      secret = SECRET_KEY.test(k);
      if (verdicts.size < 1000) verdicts.set(k, secret);
    }
    return secret;
  };
  return (fields) => redact(fields, isSecret);
}
