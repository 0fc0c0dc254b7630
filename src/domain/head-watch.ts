/**
 * When payd first saw each new upstream head (a block number, a slot), whichever endpoint
 * reported it. A source that has worked through everything up to a head is caught up "as of"
 * the first sighting of that head anywhere: lag is counted against the newest head any endpoint
 * reports, so a pass served by an endpoint that trails another still shows as lag. A head that
 * stops moving keeps its first-seen time, so the lag keeps growing although every call succeeds.
 */
export interface HeadSighting {
  head: number;
  /** ms, the source's clock. */
  seenAt: number;
}

/** Sightings kept to answer `asOf` for an endpoint that trails the newest; older ones merge into the oldest kept. */
const KEEP = 2048;

export function createHeadWatch() {
  /** New heads in the order they were first seen: heads and times both ascending. */
  const seen: HeadSighting[] = [];
  return {
    /** Records `head` seen at `at`; returns the newest head and when it was first seen. */
    observe(head: number, at: number): HeadSighting {
      const newest = seen[seen.length - 1];
      if (newest === undefined || head > newest.head) {
        seen.push({ head, seenAt: at });
        if (seen.length > KEEP) seen.splice(0, seen.length - KEEP);
      }
      return seen[seen.length - 1]!;
    },
    /**
     * When a head at least `head` was first seen: everything an endpoint listed up to `head` is
     * what any endpoint showed at that time. Undefined before any sighting.
     */
    asOf(head: number): number | undefined {
      if (seen.length === 0) return undefined;
      // The first sighting reaching `head` (binary search; heads ascend).
      let lo = 0;
      let hi = seen.length - 1;
      if (seen[hi]!.head < head) return seen[hi]!.seenAt;
      while (lo < hi) {
        const mid = (lo + hi) >> 1;
        if (seen[mid]!.head >= head) hi = mid;
        else lo = mid + 1;
      }
      return seen[lo]!.seenAt;
    },
  };
}
