import type { InitWizard } from '../../methods/method.ts';
import { builtinMethods } from '../../methods/registry.ts';
import type { Prompter } from '../prompter.ts';
import { SYSTEMD } from '../systemd-recipe.ts';
import { askOptional } from './optional.ts';
import { secretSource, type Asked, type Json, type NeededSecret, type SecretRef } from './secrets.ts';

/** What `payd init --yes` writes, and the base every answer fills in. */
export const DEFAULT_CONFIG: Json = {
  server: { host: '127.0.0.1', port: 8080, publicUrl: 'http://127.0.0.1:8080' },
  database: { file: 'data/payd.sqlite' },
  intents: { ttlSeconds: 1800, amountReuseCooldownSeconds: 86400 },
  webhooks: { timeoutSeconds: 10, allowInsecureUrls: false },
  methods: {},
};

/** The config `--yes` writes: the defaults (under systemd, the master key as its credential). */
export function defaultAnswers(systemd: boolean): Asked {
  const server = { ...(DEFAULT_CONFIG.server as Json), ...(systemd ? { masterKey: { file: `$CREDENTIALS_DIRECTORY/${SYSTEMD.credentials.masterKey}` } } : {}) };
  return {
    json: { ...DEFAULT_CONFIG, server, ...(systemd ? { database: { file: SYSTEMD.database } } : {}) },
    secrets: systemd ? [{ path: 'server.masterKey', what: 'master key', ref: server.masterKey as SecretRef, credential: SYSTEMD.credentials.masterKey }] : [],
  };
}

/** Asks for the settings; secrets are stored as { env } / { file } references, never inline. */
export async function ask(prompter: Prompter, systemd: boolean): Promise<Asked> {
  const { input, confirm, number } = prompter;
  const needed: NeededSecret[] = [];
  const req = (check: (s: string) => boolean, msg: string) => (s: string) => check(s.trim()) || msg;
  const host = await input({ message: 'Listen address', default: '127.0.0.1' });
  const port = (await number({ message: 'Listen port', default: 8080, min: 1, max: 65535, required: true })) ?? 8080;
  const publicUrl = await input({ message: 'Public base URL (for checkout links)', default: systemd ? 'https://pay.example.com' : `http://${host}:${port}` });
  const file = systemd ? SYSTEMD.database : await input({ message: 'Database file', default: 'data/payd.sqlite' });
  const methods: Json = {};
  // Each method asks its own questions (its descriptor's init), in the wizard's order.
  // A question asked again gets the first answer: one Solana wallet serves SOL and every SPL token on it.
  const answered = new Map<string, string>();
  const askOnce: InitWizard['input'] = async (o) => {
    let answer = answered.get(o.message);
    if (answer === undefined) answered.set(o.message, (answer = await input(o)));
    return answer;
  };
  const wizard: InitWizard = { input: askOnce, confirm, number, req, secret: (s) => secretSource(prompter, systemd, s, needed), credentials: SYSTEMD.credentials };
  for (const m of [...builtinMethods.list].filter((m) => m.init).sort((x, y) => x.init!.order - y.init!.order)) {
    const section = await m.init!.ask(wizard);
    if (section) methods[m.id] = section;
  }
  const optional = await askOptional(prompter, { systemd, methods, publicUrl, needed });
  const server: Json = { host, port, publicUrl, ...(optional.console ? { console: optional.console } : {}) };
  if (systemd) {
    server.masterKey = { file: `$CREDENTIALS_DIRECTORY/${SYSTEMD.credentials.masterKey}` };
    needed.push({ path: 'server.masterKey', what: 'master key', ref: server.masterKey as SecretRef, credential: SYSTEMD.credentials.masterKey });
  }
  const sections = { ...(optional.pricing ? { pricing: optional.pricing } : {}), ...(optional.notifications ? { notifications: optional.notifications } : {}) };
  return { json: { ...DEFAULT_CONFIG, server, database: { file }, methods, ...sections }, secrets: needed };
}
