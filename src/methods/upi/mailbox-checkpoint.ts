/** Where the mailbox source stands: the high-water mark of one mailbox, per UIDVALIDITY epoch. */
export interface MailboxCheckpoint {
  /** UIDVALIDITY as a decimal string (imapflow gives a BigInt; JSON cannot hold one). */
  uidValidity: string;
  /** Every UID ≤ lastUid of this epoch has an outcome in the ledger. */
  lastUid: number;
}

export interface MailboxAddress {
  user: string;
  host: string;
  mailbox: string;
}

/** One checkpoint per watched mailbox, e.g. "upi:imap:payd@imap.example.com/INBOX". */
export const checkpointKey = (a: MailboxAddress): string => `upi:imap:${a.user}@${a.host}/${a.mailbox}`;

/** Accepts only a well-formed stored value; anything else counts as "no checkpoint" (bounded rescan). */
export function readCheckpoint(value: unknown): MailboxCheckpoint | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const { uidValidity, lastUid } = value as Record<string, unknown>;
  if (typeof uidValidity !== 'string' || !/^\d+$/.test(uidValidity)) return undefined;
  if (typeof lastUid !== 'number' || !Number.isSafeInteger(lastUid) || lastUid < 0) return undefined;
  return { uidValidity, lastUid };
}

/** The stable id of one message for rejected observations: UIDs mean nothing without their epoch. */
export const messageRef = (uidValidity: string, uid: number): string => `imap:${uidValidity}:${uid}`;
