/** A value, or a promise of it: SQLite answers synchronously, PostgreSQL over the network. */
export type Awaitable<T> = T | Promise<T>;

/**
 * `f` applied to the value, now when it is already here, later when it is a promise. The API's
 * hot path stays synchronous on SQLite: every promise (and its microtask) costs a request time.
 */
export function andThen<T, U>(value: Awaitable<T>, f: (v: T) => Awaitable<U>): Awaitable<U> {
  return value instanceof Promise ? value.then(f) : f(value);
}
