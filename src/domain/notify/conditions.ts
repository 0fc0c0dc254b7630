/**
 * Coalescing: an outage is one "problem" message and one "recovered" message, however many
 * times it is observed in between. Pure: the caller persists `open` and turns the result into
 * queue rows whose dedup keys carry the episode's start, so a re-run after a crash adds nothing.
 */
import type { ConditionKind } from './text.ts';

export interface Observation {
  kind: ConditionKind;
  /** What it is about: a method, a merchant, a bank. */
  subject: string;
  /** true: bad now; false: good now; undefined: not known now (a source not running here yet). */
  bad: boolean | undefined;
  /** Shown in the problem message ("down since 10:02", "3"). */
  detail: string;
}

/** An episode that is open: key → when it started (ms) and its kind and subject. */
export type OpenConditions = Record<string, { kind: ConditionKind; subject: string; since: number }>;

export interface Transition {
  key: string;
  kind: ConditionKind;
  subject: string;
  state: 'problem' | 'recovered';
  since: number;
  detail: string;
}

export const conditionKey = (o: { kind: ConditionKind; subject: string }): string => `${o.kind}:${o.subject}`;

/**
 * The next open set and the messages to send. A condition that disappears from the
 * observations entirely (a source no longer configured) closes silently.
 */
export function stepConditions(open: OpenConditions, seen: Observation[], now: number): { open: OpenConditions; transitions: Transition[] } {
  const next: OpenConditions = {};
  const transitions: Transition[] = [];
  const keys = new Set<string>();
  for (const o of seen) {
    const key = conditionKey(o);
    keys.add(key);
    const was = open[key];
    if (o.bad === undefined) {
      if (was) next[key] = was;
    } else if (o.bad) {
      if (was) next[key] = was;
      else {
        next[key] = { kind: o.kind, subject: o.subject, since: now };
        transitions.push({ key, kind: o.kind, subject: o.subject, state: 'problem', since: now, detail: o.detail });
      }
    } else if (was) {
      transitions.push({ key, kind: o.kind, subject: o.subject, state: 'recovered', since: was.since, detail: o.detail });
    }
  }
  return { open: next, transitions };
}
