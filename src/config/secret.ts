/** A secret value that never prints itself: logs and JSON show "[redacted]". */
export class Secret {
  readonly #value: string;
  constructor(value: string) {
    this.#value = value;
  }
  reveal(): string {
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

/** Where a secret comes from, as written in the config; resolved by config/load.ts. */
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
