import { dirname, resolve } from 'node:path';
import type { Prompter } from '../prompter.ts';

export type Json = Record<string, unknown>;
export type SecretRef = { env: string } | { file: string };

/** One secret the operator still has to provide, and where payd will read it. */
export interface NeededSecret {
  path: string;
  what: string;
  ref: SecretRef;
  credential?: string;
}

export interface Asked {
  json: Json;
  secrets: NeededSecret[];
}

/** Asks where one secret comes from; never asks for the secret itself (it is never written to the config). */
export async function secretSource(prompter: Prompter, systemd: boolean, secret: { path: string; what: string; env: string; credential: string }, needed: NeededSecret[]): Promise<SecretRef> {
  let ref: SecretRef;
  if (systemd) ref = { file: `$CREDENTIALS_DIRECTORY/${secret.credential}` };
  else {
    const source = await prompter.select({
      message: `Where does payd read the ${secret.what} from?`,
      choices: [
        { name: `an environment variable (${secret.env})`, value: 'env' as const },
        { name: 'a file only payd can read', value: 'file' as const },
        { name: `a systemd credential (${secret.credential}, see systemd/payd.service)`, value: 'credential' as const },
      ],
      default: 'env',
    });
    if (source === 'env') ref = { env: (await prompter.input({ message: `Environment variable holding the ${secret.what}`, default: secret.env })).trim() };
    else if (source === 'file') ref = { file: (await prompter.input({ message: `File holding the ${secret.what} (relative to the config file)`, default: `secrets/${secret.credential}` })).trim() };
    else ref = { file: `$CREDENTIALS_DIRECTORY/${secret.credential}` };
  }
  needed.push({ path: secret.path, what: secret.what, ref, credential: 'file' in ref && ref.file.startsWith('$CREDENTIALS_DIRECTORY/') ? secret.credential : undefined });
  return ref;
}

/** The config with each secret reference replaced by a stand-in, to validate its shape before writing. */
export function withStandInSecrets(json: Json, secrets: NeededSecret[]): unknown {
  const copy = structuredClone(json);
  for (const s of secrets) {
    const keys = s.path.split('.');
    let at: Json = copy;
    for (const k of keys.slice(0, -1)) at = at[k] as Json;
    at[keys[keys.length - 1]] = 'stand-in';
  }
  return copy;
}

/** Where payd reads each secret, one line each, for the operator. */
export function secretLines(secrets: NeededSecret[], configFile: string, credentialsDir: string): string[] {
  return secrets.map((s) => {
    const where = s.credential ? `systemd credential ${s.credential} (${credentialsDir}/${s.credential})` : 'env' in s.ref ? `environment variable ${s.ref.env}` : `file ${resolve(dirname(configFile), s.ref.file)}`;
    return `  ${s.path.padEnd(28)} ${s.what}: ${where}`;
  });
}
