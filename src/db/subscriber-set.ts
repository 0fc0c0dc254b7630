/** Subscribers of one process, called in turn; one that throws does not stop the others. */
export function subscriberSet() {
  const fns = new Set<(ids: readonly string[] | null) => void>();
  return {
    add(fn: (ids: readonly string[] | null) => void): () => void {
      fns.add(fn);
      return () => void fns.delete(fn);
    },
    emit(ids: readonly string[] | null): void {
      for (const fn of [...fns]) {
        try {
          fn(ids);
        } catch {
          /* a subscriber's own failure is its business; the next look-again poll covers it */
        }
      }
    },
    get size() {
      return fns.size;
    },
  };
}
