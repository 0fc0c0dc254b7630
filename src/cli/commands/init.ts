import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, relative, resolve } from 'node:path';
import type { Command } from 'commander';
import { parseConfig } from '../../methods/load-config.ts';
import type { InitWizard } from '../../methods/method.ts';
import { builtinMethods } from '../../methods/registry.ts';
import { PaydError } from '../../domain/errors.ts';
import type { CliEnv } from '../context.ts';
import { SYSTEMD, systemdRecipe } from '../systemd-recipe.ts';
import { leaf, type Opts } from './leaf.ts';

type Json = Record<string, unknown>;
type SecretRef = { env: string } | { file: string };

export const DEFAULT_CONFIG: Json = {
  server: { host: '127.0.0.1', port: 8080, publicUrl: 'http://127.0.0.1:8080' },
  database: { file: 'data/payd.sqlite' },
  intents: { ttlSeconds: 1800, amountReuseCooldownSeconds: 86400 },
  webhooks: { timeoutSeconds: 10, allowInsecureUrls: false },
  methods: {},
};

export { SYSTEMD };

/** How payd asks its questions; @inquirer/prompts by default, a script in tests. */
export interface Prompter {
  input(o: { message: string; default?: string; required?: boolean; validate?: (s: string) => boolean | string }): Promise<string>;
  confirm(o: { message: string; default?: boolean }): Promise<boolean>;
  number(o: { message: string; default?: number; min?: number; max?: number; required?: boolean }): Promise<number | undefined>;
  select<T extends string>(o: { message: string; choices: { name: string; value: T }[]; default?: T }): Promise<T>;
}

/** One secret the operator still has to provide, and where payd will read it. */
interface NeededSecret {
  path: string;
  what: string;
  ref: SecretRef;
  credential?: string;
}

interface Asked {
  json: Json;
  secrets: NeededSecret[];
}

/** Asks where one secret comes from; never asks for the secret itself (it is never written to the config). */
async function secretSource(p: Prompter, systemd: boolean, s: { path: string; what: string; env: string; credential: string }, needed: NeededSecret[]): Promise<SecretRef> {
  let ref: SecretRef;
  if (systemd) ref = { file: `$CREDENTIALS_DIRECTORY/${s.credential}` };
  else {
    const source = await p.select({
      message: `Where does payd read the ${s.what} from?`,
      choices: [
        { name: `an environment variable (${s.env})`, value: 'env' as const },
        { name: 'a file only payd can read', value: 'file' as const },
        { name: `a systemd credential (${s.credential}, see systemd/payd.service)`, value: 'credential' as const },
      ],
      default: 'env',
    });
    if (source === 'env') ref = { env: (await p.input({ message: `Environment variable holding the ${s.what}`, default: s.env })).trim() };
    else if (source === 'file') ref = { file: (await p.input({ message: `File holding the ${s.what} (relative to the config file)`, default: `secrets/${s.credential}` })).trim() };
    else ref = { file: `$CREDENTIALS_DIRECTORY/${s.credential}` };
  }
  needed.push({ path: s.path, what: s.what, ref, credential: 'file' in ref && ref.file.startsWith('$CREDENTIALS_DIRECTORY/') ? s.credential : undefined });
  return ref;
}

/** Asks for the settings; secrets are stored as { env } / { file } references, never inline. */
async function ask(p: Prompter, systemd: boolean): Promise<Asked> {
  const { input, confirm, number } = p;
  const needed: NeededSecret[] = [];
  const req = (check: (s: string) => boolean, msg: string) => (s: string) => check(s.trim()) || msg;
  const host = await input({ message: 'Listen address', default: '127.0.0.1' });
  const port = (await number({ message: 'Listen port', default: 8080, min: 1, max: 65535, required: true })) ?? 8080;
  const publicUrl = await input({ message: 'Public base URL (for checkout links)', default: systemd ? 'https://pay.example.com' : `http://${host}:${port}` });
  const file = systemd ? SYSTEMD.database : await input({ message: 'Database file', default: 'data/payd.sqlite' });
  const methods: Json = {};
  // Each method asks its own questions (its descriptor's init), in the wizard's order.
  const wizard: InitWizard = { input, confirm, number, req, secret: (s) => secretSource(p, systemd, s, needed), credentials: SYSTEMD.credentials };
  for (const m of [...builtinMethods.list].filter((m) => m.init).sort((x, y) => x.init!.order - y.init!.order)) {
    const section = await m.init!.ask(wizard);
    if (section) methods[m.id] = section;
  }
  const server: Json = { host, port, publicUrl };
  if (systemd) {
    server.masterKey = { file: `$CREDENTIALS_DIRECTORY/${SYSTEMD.credentials.masterKey}` };
    needed.push({ path: 'server.masterKey', what: 'master key', ref: server.masterKey as SecretRef, credential: SYSTEMD.credentials.masterKey });
  }
  return { json: { ...DEFAULT_CONFIG, server, database: { file }, methods }, secrets: needed };
}

/** The config with each secret reference replaced by a stand-in, to validate its shape before writing. */
function withStandInSecrets(json: Json, secrets: NeededSecret[]): unknown {
  const copy = structuredClone(json);
  for (const s of secrets) {
    const keys = s.path.split('.');
    let at: Json = copy;
    for (const k of keys.slice(0, -1)) at = at[k] as Json;
    at[keys[keys.length - 1]] = 'stand-in';
  }
  return copy;
}

const shellQuote = (s: string) => (/^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`);

/** The next steps, as commands that work when pasted in order. */
function nextSteps(e: CliEnv, file: string, a: Asked, systemd: boolean, dbFile: string | null): string[] {
  const lines: string[] = [];
  const methods = Object.keys(a.json.methods as Json);
  if (systemd) {
    const rel = relative(e.cwd, file);
    const at = file === SYSTEMD.config ? SYSTEMD.config : shellQuote(rel && !rel.startsWith('..') ? rel : file);
    const secrets = a.secrets.flatMap((s) => (s.credential ? [{ credential: s.credential, what: s.what }] : []));
    const unused = Object.values(SYSTEMD.credentials).filter((c) => !secrets.some((s) => s.credential === c));
    lines.push(`next steps (the recipe of docs/operations.md "Running under systemd", for this config; from the payd checkout, /opt/payd):`);
    if (methods.length === 0) lines.push('  # no payment method is enabled yet: edit the config before starting payd');
    if (unused.length) lines.push(`  # this config does not use ${unused.join(', ')}: delete those LoadCredential= lines from /etc/systemd/system/payd.service after copying it`);
    lines.push(...systemdRecipe({ config: at, secrets }).map((l) => `  ${l}`));
    return lines;
  }
  const bin = e.self ? shellQuote(relative(e.cwd, e.self).startsWith('..') ? e.self : relative(e.cwd, e.self) || e.self) : 'npx payd';
  const cfg = `--config ${shellQuote(relative(e.cwd, file) || file)}`;
  lines.push(`next steps (from ${e.cwd}):`);
  for (const s of a.secrets) {
    if ('env' in s.ref) lines.push(`  export ${s.ref.env}='<the ${s.what}>'`);
    else if (s.credential) lines.push(`  # ${s.path}: systemd passes the ${s.credential} credential; outside systemd set CREDENTIALS_DIRECTORY to a folder holding it`);
    else {
      const at = resolve(dirname(file), s.ref.file);
      lines.push(`  mkdir -p ${shellQuote(dirname(at))} && (umask 077 && printf '%s' '<the ${s.what}>' > ${shellQuote(at)})`);
    }
  }
  if (methods.length === 0) lines.push(`  # no payment method is enabled: add one to ${file} (see config/payd.config.example.json), or try everything in the sandbox with ${bin} demo`);
  lines.push(`  ${bin} merchant create --name "My shop" ${cfg}`, `  ${bin} doctor ${cfg}`, `  ${bin} serve ${cfg}`);
  if (dbFile) lines.push(`(database ${dbFile}, master key ${dbFile}.key: back both up)`);
  return lines;
}

export function initCommand(program: Command, e: CliEnv): void {
  leaf(program.command('init').description('write a config file (asks where each secret comes from) and create the database'))
    .option('--yes', 'use the defaults without asking')
    .option('--force', 'overwrite an existing config file')
    .option('--systemd', `profile for systemd/payd.service: secrets as its credentials, database in /var/lib/payd (default config ${SYSTEMD.config})`)
    .action(async (o: Opts, cmd: Command) => {
      const g = cmd.optsWithGlobals();
      const systemd = Boolean(o.systemd);
      const file = resolve(e.cwd, (g.config as string | undefined) ?? e.env.PAYD_CONFIG ?? (systemd ? SYSTEMD.config : 'payd.config.json'));
      if (existsSync(file) && !o.force) throw new PaydError('CONFLICT', `${file} already exists; use --force to overwrite it`);
      let asked: Asked;
      if (o.yes) {
        const server = { ...(DEFAULT_CONFIG.server as Json), ...(systemd ? { masterKey: { file: `$CREDENTIALS_DIRECTORY/${SYSTEMD.credentials.masterKey}` } } : {}) };
        asked = {
          json: { ...DEFAULT_CONFIG, server, ...(systemd ? { database: { file: SYSTEMD.database } } : {}) },
          secrets: systemd ? [{ path: 'server.masterKey', what: 'master key', ref: server.masterKey as SecretRef, credential: SYSTEMD.credentials.masterKey }] : [],
        };
      } else asked = await ask(e.prompter ?? ((await import('@inquirer/prompts')) as unknown as Prompter), systemd);
      // Validate before writing: a config that payd would refuse is never written.
      const config = parseConfig(withStandInSecrets(asked.json, asked.secrets), dirname(file), e.env);
      mkdirSync(dirname(file), { recursive: true });
      writeFileSync(file, JSON.stringify(asked.json, null, 2) + '\n', { mode: 0o640 });
      e.io.out(`wrote ${file}`);
      let dbFile: string | null = null;
      // Under systemd the service creates the database as its own user (ExecStartPre: payd migrate).
      if (!systemd) {
        const [{ databaseFile }, { migrate, openDatabase }] = await Promise.all([import('../../db/paths.ts'), import('../../db/open.ts')]);
        dbFile = databaseFile(config, false);
        const db = openDatabase(dbFile);
        try {
          await migrate(db);
        } finally {
          await db.destroy();
        }
        e.io.out(`created ${dbFile}`);
      }
      if (asked.secrets.length) {
        e.io.out('secrets payd reads (never stored in the config):');
        for (const s of asked.secrets) {
          const where = s.credential ? `systemd credential ${s.credential} (${SYSTEMD.credentialsDir}/${s.credential})` : 'env' in s.ref ? `environment variable ${s.ref.env}` : `file ${resolve(dirname(file), s.ref.file)}`;
          e.io.out(`  ${s.path.padEnd(28)} ${s.what}: ${where}`);
        }
      }
      e.io.out(nextSteps(e, file, asked, systemd, dbFile).join('\n'));
    });
}
