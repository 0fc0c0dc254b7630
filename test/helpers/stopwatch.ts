/**
 * A stopwatch that does not count the time this process could not run. On the CI runner two test
 * files share two cores with daemons, databases and browsers (load 30–40), and a process may wait
 * hundreds of milliseconds for a CPU; that is not the code under test being slow. A 5 ms timer
 * measures how late the event loop ran and the stopwatch subtracts it, so a bound such as "the
 * webhook within a second" holds what the code promises (no waiting on a poll, a retry or an
 * outage) without depending on how busy the machine is. The daemon under test must run in this
 * process (startPayd), or its own stalls are not seen.
 */
export function stopwatch(tickMs = 5) {
  const start = performance.now();
  let stalled = 0;
  let expected = start + tickMs;
  const timer = setInterval(() => {
    const now = performance.now();
    // A timer a millisecond or two late is the timer's resolution, not a stall.
    if (now - expected > 2) stalled += now - expected;
    expected = now + tickMs;
  }, tickMs);
  timer.unref();
  return {
    /** Milliseconds since the start, less the time the event loop ran late. */
    ms: (): number => performance.now() - start - stalled,
    /** Stops measuring and returns `ms()` as it stands. */
    stop: (): number => {
      clearInterval(timer);
      return performance.now() - start - stalled;
    },
  };
}
