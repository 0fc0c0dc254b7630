import { dirname, relative, resolve } from 'node:path';
import type { CliEnv } from '../context.ts';
import { SYSTEMD, systemdRecipe } from '../systemd-recipe.ts';
import type { Asked, Json } from './secrets.ts';

const shellQuote = (s: string) => (/^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`);

/** The next steps, as commands that work when pasted in order. */
export function nextSteps(env: CliEnv, file: string, asked: Asked, systemd: boolean, dbFile: string | null): string[] {
  const lines: string[] = [];
  const methods = Object.keys(asked.json.methods as Json);
  if (systemd) {
    const rel = relative(env.cwd, file);
    const at = file === SYSTEMD.config ? SYSTEMD.config : shellQuote(rel && !rel.startsWith('..') ? rel : file);
    const secrets = asked.secrets.flatMap((s) => (s.credential ? [{ credential: s.credential, what: s.what }] : []));
    const unused = Object.values(SYSTEMD.credentials).filter((c) => !secrets.some((s) => s.credential === c));
    lines.push(`next steps (the recipe of docs/operations.md "Running under systemd", for this config; from the payd checkout, /opt/payd):`);
    if (methods.length === 0) lines.push('  # no payment method is enabled yet: edit the config before starting payd');
    if (unused.length) lines.push(`  # this config does not use ${unused.join(', ')}: delete those LoadCredential= lines from /etc/systemd/system/payd.service after copying it`);
    lines.push(...systemdRecipe({ config: at, secrets }).map((l) => `  ${l}`));
    return lines;
  }
  const bin = env.self ? shellQuote(relative(env.cwd, env.self).startsWith('..') ? env.self : relative(env.cwd, env.self) || env.self) : 'npx payd';
  const cfg = `--config ${shellQuote(relative(env.cwd, file) || file)}`;
  lines.push(`next steps (from ${env.cwd}):`);
  for (const s of asked.secrets) {
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
