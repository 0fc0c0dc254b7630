// An in-memory mailbox with IMAP's quirks: day-granular SEARCH SINCE and the `*` in `n:*`.
import type { MailboxView } from '../../../../src/methods/upi/mailbox-sync.ts';

export class MemoryMailbox {
  uidValidity = '1000';
  uidNext = 1;
  readonly messages: { uid: number; internalDate: number; source: Buffer }[] = [];
  fetched: number[] = [];

  add(raw: string, internalDate: number): number {
    const uid = this.uidNext++;
    this.messages.push({ uid, internalDate, source: Buffer.from(raw) });
    return uid;
  }

  /** Delete + recreate: new epoch, mail gone, UIDs restart. */
  recreate(uidValidity: string): void {
    this.uidValidity = uidValidity;
    this.messages.length = 0;
    this.uidNext = 1;
  }

  view(): MailboxView {
    const snapshot = { uidValidity: this.uidValidity, uidNext: this.uidNext };
    return {
      ...snapshot,
      searchSince: async (since) => {
        const day = Date.UTC(since.getUTCFullYear(), since.getUTCMonth(), since.getUTCDate());
        return this.messages.filter((m) => m.internalDate >= day).map((m) => m.uid);
      },
      searchFrom: async (from) => {
        const hits = this.messages.filter((m) => m.uid >= from).map((m) => m.uid);
        // RFC 3501: `*` is the highest UID, so `from:*` matches it even when it is below `from`.
        if (hits.length === 0 && this.messages.length > 0) return [this.messages[this.messages.length - 1].uid];
        return hits;
      },
      envelope: async (uid) => {
        const m = this.messages.find((x) => x.uid === uid);
        return m && { uid: m.uid, size: m.source.length, internalDate: m.internalDate };
      },
      head: async (uid, maxBytes) => this.messages.find((x) => x.uid === uid)?.source.subarray(0, maxBytes),
      fetch: async (uid, maxBytes) => {
        this.fetched.push(uid);
        const m = this.messages.find((x) => x.uid === uid);
        return m && { uid: m.uid, source: m.source.subarray(0, maxBytes), internalDate: m.internalDate };
      },
    };
  }
}
