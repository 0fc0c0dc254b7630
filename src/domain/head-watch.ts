/**
 * When payd first saw each new upstream head (a block number, a slot). A source that has worked
 * through everything up to a head is caught up "as of" that first sighting; a head that stops
 * moving keeps its first-seen time, so the lag keeps growing although every call succeeds.
 */
export interface HeadSighting {
  head: number;
  /** ms, the source's clock. */
  seenAt: number;
}

export function createHeadWatch() {
  let newest: HeadSighting | undefined;
  return {
    /** Records `head` seen at `at`; returns the newest head and when it was first seen. */
    observe(head: number, at: number): HeadSighting {
      if (newest === undefined || head > newest.head) newest = { head, seenAt: at };
      return newest;
    },
  };
}
