import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import * as v from 'valibot';
import { PaydError } from '../domain/errors.ts';
import { DEFAULT_MERCHANT_SHARE_PERCENT, DEFAULT_SURCHARGE_BASIS_POINTS, type Method, type MethodRules } from '../domain/methods.ts';
import { formatMinor, isStorableMinor, MAX_DECIMALS, MAX_MINOR, numberToDecimalText, parseDecimal } from '../domain/money.ts';
import { parseTolerance, type PaymentPolicy } from '../domain/payment-policy.ts';
import { machineTimeZone } from '../domain/shop-time.ts';
import { configSchema, type ParsedConfig } from './schema.ts';
import { Secret, SecretRefBox, type Resolved } from './secret.ts';

export type Config = Omit<Resolved<ParsedConfig>, 'database'> & {
  database: Omit<Resolved<ParsedConfig>['database'], 'file'> & {
    /**
     * The SQLite file (absolute). With `url` set the live store is PostgreSQL and this only
     * places the sandbox's SQLite database (the default data/payd.sqlite's sibling).
     */
    file: string;
  };
  /** Directory relative paths are resolved against. */
  baseDir: string;
  /** Money rules per enabled method, in minor units. */
  amounts: Partial<Record<Method, MethodAmounts>>;
  /** What each enabled method does with late, short and over-payments. */
  policies: Partial<Record<Method, PaymentPolicy>>;
  /**
   * The shop's time zone, one for the console's times and the bot's /today: server.console.timeZone
   * or notifications.timeZone (whichever is set), else the machine's zone.
   */
  shopTimeZone: string;
};

/** What the config needs of each method (its descriptor, methods/method.ts): its section and money rules. */
export interface ConfigMethod {
  id: string;
  rules: Pick<MethodRules, 'decimals' | 'amountStep' | 'unit' | 'roundUnitMinor'>;
  config: v.GenericSchema;
  receiver(section: never): string;
}

export interface MethodAmounts {
  /** Receiving address (VPA, TRON address, Solana wallet). */
  receiver: string;
  minMinor: bigint | null;
  maxMinor: bigint | null;
  stepMinor: bigint;
  maxOffsetSteps: number;
  /** methods.<M>.maxSurchargePercent in hundredths of a percent. */
  surchargeBasisPoints: bigint;
  /** methods.<M>.merchantSharePercent: the share of a price's window one merchant may hold. */
  merchantSharePercent: number;
  /** The descriptor's round unit: no pay_amount is a multiple of it (domain/amount-window.ts). */
  roundUnitMinor: bigint | null;
}

export type Env = Record<string, string | undefined>;

const DEFAULT_DATABASE_FILE = 'data/payd.sqlite';

const fail = (path: string, message: string): never => {
  throw new PaydError('CONFIG_INVALID', `${path}: ${message}`);
};

/** Reads, validates and resolves a config file; the config's environment variables (PAYD_*, secrets) come from `env`. */
export function loadConfigFileWith(methods: readonly ConfigMethod[], file: string, env: Env = process.env): Config {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    throw new PaydError('CONFIG_INVALID', `cannot read config file ${file}: ${(e as NodeJS.ErrnoException).code ?? String(e)}`);
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (e) {
    throw new PaydError('CONFIG_INVALID', `${file}: not valid JSON (${(e as Error).message})`);
  }
  return parseConfigWith(methods, raw, dirname(resolve(file)), env);
}

/** Validates a config object; every error names its path ("methods.UPI.imap.port: expected a number"). */
export function parseConfigWith(methods: readonly ConfigMethod[], raw: unknown, baseDir: string, env: Env = process.env): Config {
  const result = v.safeParse(configSchema(Object.fromEntries(methods.map((m) => [m.id, m.config]))), raw);
  if (!result.success) {
    const lines = result.issues.map((issue) => `${v.getDotPath(issue) ?? '(root)'}: ${describeIssue(issue)}`);
    throw new PaydError('CONFIG_INVALID', `invalid config:\n  ${[...new Set(lines)].join('\n  ')}`);
  }
  const resolved = resolveSecrets(result.output, '', baseDir, env) as Resolved<ParsedConfig>;
  if (resolved.database.file !== undefined && resolved.database.url !== undefined) {
    fail('database', 'set either database.file (SQLite) or database.url (PostgreSQL), not both');
  }
  if (resolved.database.url !== undefined && resolved.server.masterKey === undefined) {
    // The default key file lives beside a SQLite file; nodes sharing PostgreSQL must share one key.
    fail('server.masterKey', 'is required with database.url (PostgreSQL): every node must use the same key, e.g. { "file": "$CREDENTIALS_DIRECTORY/master-key" }');
  }
  const zones = [resolved.server.console.timeZone, resolved.notifications?.timeZone].filter((z): z is string => z !== undefined);
  if (zones.length === 2 && zones[0] !== zones[1]) fail('notifications.timeZone', `is ${zones[1]} but server.console.timeZone is ${zones[0]}: the shop has one time zone, set it in one place`);
  const parsed = { ...resolved, database: { ...resolved.database, file: resolve(baseDir, resolved.database.file ?? DEFAULT_DATABASE_FILE) } };
  const amounts: Config['amounts'] = {};
  const policies: Config['policies'] = {};
  for (const method of methods) {
    const section = parsed.methods[method.id];
    if (!section) continue;
    const a = (amounts[method.id] = methodAmounts(method, section, (method.receiver as (s: unknown) => string)(section)));
    policies[method.id] = methodPolicy(method.id, method.rules.decimals, section, a);
  }
  return { ...parsed, baseDir, amounts, policies, shopTimeZone: zones[0] ?? machineTimeZone() };
}

function describeIssue(issue: v.BaseIssue<unknown>): string {
  if (issue.kind === 'schema' && issue.type === 'strict_object' && issue.input !== undefined) return 'unknown key';
  if (issue.expected === 'never' || issue.type === 'never') return 'unknown key';
  if (issue.input === undefined && issue.kind === 'schema') return 'is required';
  return issue.message;
}

function methodAmounts(
  { id: method, rules }: ConfigMethod,
  s: { minAmount?: number; maxAmount?: number; amountStep?: number; maxOffsetSteps: number; maxSurchargePercent?: number; merchantSharePercent?: number },
  receiver: string,
): MethodAmounts {
  const { decimals, amountStep } = rules;
  // A descriptor's promise, checked once: amounts are exact only up to this many places.
  if (!Number.isInteger(decimals) || decimals < 0 || decimals > MAX_DECIMALS) return fail(`methods.${method}`, `the method has ${decimals} decimals; payd keeps at most ${MAX_DECIMALS}`);
  const toMinor = (key: string, n: number | undefined): bigint | null => {
    if (n === undefined) return null;
    const parsed = parseDecimal(numberToDecimalText(n), decimals);
    if (!parsed.ok) return fail(`methods.${method}.${key}`, `at most ${decimals} decimals`);
    if (!isStorableMinor(parsed.minor)) return fail(`methods.${method}.${key}`, `at most ${formatMinor(MAX_MINOR, decimals)}`);
    return parsed.minor;
  };
  const minMinor = toMinor('minAmount', s.minAmount);
  const maxMinor = toMinor('maxAmount', s.maxAmount);
  if (minMinor !== null && maxMinor !== null && minMinor > maxMinor) fail(`methods.${method}.minAmount`, 'must not exceed maxAmount');
  const stepMinor = toMinor('amountStep', s.amountStep) ?? amountStep;
  if (stepMinor <= 0n) fail(`methods.${method}.amountStep`, 'must be at least one minor unit');
  const roundUnitMinor = rules.roundUnitMinor;
  if (roundUnitMinor !== null && stepMinor % roundUnitMinor === 0n) {
    // Every offset of a whole price would be whole too: nothing could be handed out for it.
    fail(`methods.${method}.amountStep`, `must not be a multiple of ${formatMinor(roundUnitMinor, decimals)} (pay amounts are never whole ${rules.unit})`);
  }
  let surchargeBasisPoints = DEFAULT_SURCHARGE_BASIS_POINTS;
  if (s.maxSurchargePercent !== undefined) {
    const percent = parseDecimal(numberToDecimalText(s.maxSurchargePercent), 2);
    if (!percent.ok) return fail(`methods.${method}.maxSurchargePercent`, 'at most 2 decimals');
    surchargeBasisPoints = percent.minor;
  }
  return { receiver, minMinor, maxMinor, stepMinor, maxOffsetSteps: s.maxOffsetSteps, surchargeBasisPoints, merchantSharePercent: s.merchantSharePercent ?? DEFAULT_MERCHANT_SHARE_PERCENT, roundUnitMinor };
}

/** The policies of one method section; defaults: late payments settle (held after an expired quote), no tolerance, the window is the offset range. */
export function methodPolicy(
  method: Method,
  decimals: number,
  section: { latePayments?: 'settle' | 'hold'; settleExpiredQuotes?: boolean; underpaymentTolerance?: string; attributionWindow?: number },
  amounts: Pick<MethodAmounts, 'stepMinor' | 'maxOffsetSteps' | 'roundUnitMinor'>,
): PaymentPolicy {
  let underpaymentTolerance: PaymentPolicy['underpaymentTolerance'] = null;
  if (section.underpaymentTolerance !== undefined) {
    const t = parseTolerance(section.underpaymentTolerance, decimals);
    underpaymentTolerance = 'error' in t ? fail(`methods.${method}.underpaymentTolerance`, t.error) : t;
  }
  let attributionWindowMinor = amounts.stepMinor * BigInt(amounts.maxOffsetSteps);
  if (section.attributionWindow !== undefined) {
    const w = parseDecimal(numberToDecimalText(section.attributionWindow), decimals);
    attributionWindowMinor = w.ok ? w.minor : fail(`methods.${method}.attributionWindow`, `at most ${decimals} decimals`);
  }
  return { latePayments: section.latePayments ?? 'settle', settleExpiredQuotes: section.settleExpiredQuotes ?? false, underpaymentTolerance, attributionWindowMinor, roundUnitMinor: amounts.roundUnitMinor };
}

function resolveSecrets(value: unknown, path: string, baseDir: string, env: Env): unknown {
  if (value instanceof SecretRefBox) return resolveSecret(value, path, baseDir, env);
  if (Array.isArray(value)) return value.map((x, i) => resolveSecrets(x, `${path}.${i}`, baseDir, env));
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(value)) out[k] = resolveSecrets(x, path ? `${path}.${k}` : k, baseDir, env);
    return out;
  }
  return value;
}

/** A secret read at its first use; a missing one fails there, saying how to supply it. */
function resolveSecret(box: SecretRefBox, path: string, baseDir: string, env: Env): Secret {
  const ref = box.ref;
  if (typeof ref === 'string') return new Secret(ref);
  if ('env' in ref) {
    return new Secret(() => {
      const value = env[ref.env];
      if (!value) return fail(path, `environment variable ${ref.env} is not set; this command needs it (nothing was changed)`);
      return value;
    });
  }
  return new Secret(() => readSecretFile(ref.file, path, baseDir, env));
}

const CREDENTIALS = /^\$CREDENTIALS_DIRECTORY\//;

function readSecretFile(ref: string, path: string, baseDir: string, env: Env): string {
  const credential = CREDENTIALS.test(ref) ? ref.replace(CREDENTIALS, '') : null;
  if (credential !== null && !env.CREDENTIALS_DIRECTORY) {
    // The CLI beside the systemd unit: the unit's credentials exist only inside the unit.
    return fail(
      path,
      `this command needs the secret "${credential}" from $CREDENTIALS_DIRECTORY, which systemd sets only inside the payd unit; nothing was changed. ` +
        `Run the command with that credential loaded, e.g.\n` +
        `  sudo systemd-run --quiet --pipe --wait --collect -p User=payd -p LoadCredential=${credential}:/etc/payd/credentials/${credential} /opt/payd/bin/payd --config <config> <command…>\n` +
        `or set CREDENTIALS_DIRECTORY to a directory with a file "${credential}" that this user can read.`,
    );
  }
  const file = resolve(baseDir, credential !== null ? `${env.CREDENTIALS_DIRECTORY}/${credential}` : ref);
  let value: string;
  try {
    value = readFileSync(file, 'utf8').replace(/\r?\n$/, '');
  } catch (e) {
    return fail(path, `this command needs the secret in ${file}, which cannot be read (${(e as NodeJS.ErrnoException).code ?? String(e)}); nothing was changed`);
  }
  if (!value) return fail(path, `secret file ${file} is empty`);
  return value;
}

/** Reads every secret in a config now (the daemon: fail at start, not at first use). */
export function revealSecrets(value: unknown): void {
  if (value instanceof Secret) value.reveal();
  else if (Array.isArray(value)) value.forEach(revealSecrets);
  else if (value && typeof value === 'object') for (const x of Object.values(value)) revealSecrets(x);
}
