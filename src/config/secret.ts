/**
 * A secret value that never prints itself: logs and JSON show "[redacted]". It may be
 * read lazily (a file or environment variable read at first `reveal()`), so a command
 * only needs the secrets it actually uses; a missing one throws there, naming itself.
 */
export class Secret {
  #value: string | undefined;
  readonly #read: (() => string) | undefined;
  constructor(value: string | (() => string)) {
    if (typeof value === 'string') this.#value = value;
    else this.#read = value;
  }
  reveal(): string {
    this.#value ??= this.#read!();
    return this.#value;
  }
  toString(): string {
    return '[redacted]';
  }
  toJSON(): string {
    return '[redacted]';
  }
  [Symbol.for('nodejs.util.inspect.custom')](): string {
    return 'Secret([redacted])';
  }
}

/** Where a secret comes from, as written in the config; resolved by config/read.ts. */
export class SecretRefBox {
  constructor(readonly ref: string | { env: string } | { file: string }) {}
}

/** A parsed config type with every secret reference replaced by its resolved `Secret`. */
export type Resolved<T> = T extends SecretRefBox
  ? Secret
  : T extends readonly (infer U)[]
    ? Resolved<U>[]
    : T extends object
      ? { [K in keyof T]: Resolved<T[K]> }
      : T;
