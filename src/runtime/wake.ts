/** An edge-triggered "work may be waiting" signal; a wake with nobody sleeping is remembered once. */
export class WakeSignal {
  #waiters = new Set<() => void>();
  #pending = false;
  on(fn: () => void): void {
    if (this.#pending) {
      this.#pending = false;
      queueMicrotask(fn);
      return;
    }
    this.#waiters.add(fn);
  }
  off(fn: () => void): void {
    this.#waiters.delete(fn);
  }
  wake(): void {
    if (this.#waiters.size === 0) {
      this.#pending = true;
      return;
    }
    const fns = [...this.#waiters];
    this.#waiters.clear();
    for (const fn of fns) fn();
  }
}
