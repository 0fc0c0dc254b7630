/**
 * The heads a pool's endpoints report (TRON solidified block, Solana slot, an EVM final block),
 * judged against one another: no endpoint's head is believed on its own word.
 * - A head is judged against the others: one beyond what the newest agreed head (the anchor)
 *   could have grown to since it was first seen, and beyond every other endpoint's head, by more
 *   than `aheadBy`, is suspect, not leading; so is a head whose block time is past the wall clock
 *   plus CLOCK_SKEW_MS. A suspect endpoint is asked last and its head counts for nothing.
 * - The agreed head is the `quorum`-th newest believable head (fewer when fewer are believable):
 *   a cursor or checkpoint never passes it, whatever one endpoint lists.
 * - An endpoint trailing the newest believable head by more than `behindBy` is asked after those
 *   at it, so a frozen or lagging endpoint stops being the one that serves.
 */
import type { Clock } from '../domain/ports.ts';
import { createHeadWatch } from '../domain/head-watch.ts';
import type { EndpointSpec } from './endpoints.ts';
import type { Member } from './upstream-health.ts';

/** How far past the wall clock a block time may be and still be believed, ms. */
export const CLOCK_SKEW_MS = 60_000;

export interface HeadOptions {
  /** An endpoint whose head trails the newest believable one by more than this (blocks, slots) is asked after those at it. */
  behindBy: number;
  /**
   * How far (blocks, slots) a head may run ahead of what the others make plausible before it is
   * suspect. Default 10 × behindBy.
   */
  aheadBy?: number;
  /** The fastest the chain makes heads, ms per block or slot (a little under its nominal time). Default 1 ms (no time bound). */
  headIntervalMs?: number;
}

export function createHeadJudge<E extends EndpointSpec>(members: Member<E>[], quorum: number, clock: Clock, options: HeadOptions) {
  const aheadBy = options.aheadBy ?? 10 * options.behindBy;
  const headIntervalMs = options.headIntervalMs ?? 1;
  /** The newest head `quorum` believable endpoints reached, and when it was first seen. */
  let anchor: { head: number; at: number } | undefined;
  /** First sightings of believable heads, to date the anchor. */
  const sightings = createHeadWatch();
  /**
   * The highest head each endpoint ever reported within the wall clock, and when: what it vouches
   * for. An endpoint that falls back (a node restarted from a snapshot) still vouches for the
   * others' heads having grown since, so they do not turn suspect next to it.
   */
  const peaks = new Map<Member<E>, { head: number; at: number }>();

  const believable = (): Member<E>[] => members.filter((m) => m.health.head !== undefined && m.health.suspect === undefined);
  const newestHead = (): number | undefined => {
    let best: number | undefined;
    for (const m of believable()) if (best === undefined || m.health.head! > best) best = m.health.head;
    return best;
  };
  /** The `quorum`-th newest believable head (or the lowest, when fewer are believable), and whose it is. */
  const agreed = (): Member<E> | undefined => {
    const heads = believable().sort((a, b) => b.health.head! - a.health.head!);
    return heads.length === 0 ? undefined : heads[Math.min(quorum, heads.length) - 1];
  };
  /** A head at most this high is plausible next to `ref`, seen at `at`: the chain grew at most one head per headIntervalMs since. */
  const bound = (ref: number, at: number, now: number): number => ref + Math.max(0, now - at) / headIntervalMs + aheadBy;

  /**
   * Re-judges every endpoint's head after one changed: against the anchor and the highest head
   * every other endpoint reported within the wall clock. Then the anchor moves to the agreed head,
   * but only on the word of more than one endpoint where more than one is configured (which of two
   * first answers must not decide whom to believe).
   */
  function judge(now: number): void {
    for (const m of members) {
      const h = m.health;
      if (h.head === undefined) continue;
      if (h.headTime !== undefined && h.headTime > now + CLOCK_SKEW_MS) {
        h.suspect = 'block time beyond the wall clock';
        continue;
      }
      const refs: number[] = [];
      if (anchor) refs.push(bound(anchor.head, anchor.at, now));
      for (const other of members) {
        const peak = peaks.get(other);
        if (other !== m && peak) refs.push(bound(peak.head, peak.at, now));
      }
      if (refs.length === 0 || h.head <= Math.max(...refs)) delete h.suspect;
      else h.suspect = `head ${h.head} far ahead of the other endpoints`;
    }
    const voices = believable();
    for (const m of voices) sightings.observe(m.health.head!, m.health.headAt!);
    if (members.length > 1 && voices.length < 2) return;
    const a = agreed();
    if (a && (anchor === undefined || a.health.head! > anchor.head)) anchor = { head: a.health.head!, at: sightings.asOf(a.health.head!) ?? now };
  }

  const behind = (m: Member<E>, newest: number | undefined): boolean => newest !== undefined && m.health.head !== undefined && newest - m.health.head > options.behindBy;

  /**
   * The head `m` reported now, with its block time (ms) where the chain gives one; returns the
   * newest believable head. Whether `m`'s head is believed: `believed(m)`.
   */
  function observeHead(m: Member<E>, head: number, blockTime?: number): number | undefined {
    const now = clock.now();
    m.health.head = head;
    m.health.headAt = now;
    if (blockTime === undefined) delete m.health.headTime;
    else m.health.headTime = blockTime;
    const peak = peaks.get(m);
    const withinClock = blockTime === undefined || blockTime <= now + CLOCK_SKEW_MS;
    if (withinClock && (peak === undefined || head > peak.head)) peaks.set(m, { head, at: now });
    judge(now);
    return newestHead();
  }

  /** Whether `m`'s last head is believed (not suspect). */
  const believed = (m: Member<E>): boolean => m.health.head !== undefined && m.health.suspect === undefined;

  /**
   * The head the endpoints agree on: the `quorum`-th newest believable head (the lowest when
   * fewer are believable), with its block time where known. A cursor never passes it.
   */
  function agreedHead(): { head: number; time?: number } | undefined {
    const a = agreed();
    return a && { head: a.health.head!, ...(a.health.headTime !== undefined ? { time: a.health.headTime } : {}) };
  }

  /** Whether `m` trails the newest believable head by more than `behindBy`. */
  const isBehind = (m: Member<E>): boolean => behind(m, newestHead());

  return { observeHead, believed, agreedHead, newestHead, behind, isBehind };
}
