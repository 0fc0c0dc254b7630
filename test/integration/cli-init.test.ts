import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import type { Prompter } from '../../src/cli/prompter.ts';
import { runCli } from '../../src/cli/main.ts';
import { parseConfig } from '../../src/methods/load-config.ts';
import { builtinMethods, pricingPegs } from '../../src/methods/registry.ts';
import { missingPair } from '../../src/domain/rates.ts';
import { PAYD_BIN } from '../helpers/cli.ts';

/** Answers each question from a script, running the question's own validation like the terminal would. */
function scripted(script: Record<string, (string | boolean | number)[]>) {
  const answers = structuredClone(script);
  const asked: string[] = [];
  const next = (message: string) => {
    const key = Object.keys(answers).find((k) => message.includes(k));
    if (!key || answers[key].length === 0) throw new Error(`unexpected question: ${message}`);
    asked.push(message);
    return answers[key].shift()!;
  };
  const prompter: Prompter = {
    async input(o) {
      for (;;) {
        const a = next(o.message);
        const value = a === '' && o.default !== undefined ? o.default : String(a);
        const verdict = o.validate?.(value) ?? true;
        if (verdict === true) return value;
        asked.push(`rejected: ${verdict}`);
      }
    },
    confirm: async (o) => Boolean(next(o.message)),
    number: async (o) => {
      const a = next(o.message);
      return a === '' ? o.default : Number(a);
    },
    select: async (o) => {
      const a = String(next(o.message));
      const choice = o.choices.find((c) => c.value === a);
      if (!choice) throw new Error(`${a} is not a choice of ${o.message}`);
      return choice.value;
    },
  };
  return { prompter, asked };
}

test('payd init asks for the settings, re-asks on invalid answers, and writes a config payd accepts', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'payd-init-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const { prompter, asked } = scripted({
    'Listen address': [''],
    'Listen port': [9001],
    'Public base URL': ['https://pay.example.com'],
    'Database file': [''],
    'Accept UPI': [false],
    'Accept USDT on TRON': [true],
    'Your TRON address': ['not-an-address', 'TWiw9REQDT97WudRTTnw118xEFGc3HWwuM'],
    'Use a TronGrid API key': [true],
    'Where does payd read the TronGrid API key from': ['env'],
    'Environment variable holding the TronGrid API key': [''],
    'Accept SOL on Solana': [true],
    'Accept USDT on Solana': [false],
    'Accept USDC on Solana': [true],
    // One wallet for SOL and USDC on Solana: asked once.
    'Your Solana wallet address': ['4Nd1mBQtrMJVYVfKf2PJy9NZUZdTAsp7D4xWLs4gDB4T'],
    'Accept USDT or USDC on EVM chains': [true],
    'on Ethereum (ERC20)?': [false, false],
    'on BNB Smart Chain (BEP20)?': [true, true],
    'on Polygon PoS?': [true, false],
    'on Arbitrum One?': [false, false],
    'on Base?': [true],
    // BNB Smart Chain's address, asked once for both its tokens; a mixed-case address with a wrong EIP-55 checksum is a typo.
    'Your receiving address on BNB Smart Chain (BEP20)': ['0x90F79bf6EB2c4f870365E785982E1f101E93b90a', '0x90F79bf6EB2c4f870365E785982E1f101E93b906'],
    // Polygon's own address; Base takes the one given before.
    'Receive on Polygon PoS at 0x90F79bf6EB2c4f870365E785982E1f101E93b906 too': [false],
    'Your receiving address on Polygon PoS': ['0x15d34AAf54267DB7D7c367839AAf71A00a2C6A65'],
    'Receive on Base at 0x15d34AAf54267DB7D7c367839AAf71A00a2C6A65 too': [true],
    ...NO_EXTRAS,
  });
  let out = '';
  const code = await runCli(['init'], { env: {}, cwd: dir, io: { out: (s) => void (out += s), err: (s) => void (out += s) }, prompter });
  assert.equal(code, 0, out);
  assert.ok(asked.includes('rejected: expected a TRON address (T…)'), asked.join('\n'));
  assert.equal(asked.filter((q) => q.startsWith('Your receiving address on BNB Smart Chain')).length, 2, "one address for the chain's two tokens (asked again only after the typo)");
  assert.equal(asked.filter((q) => q.startsWith('Your Solana wallet address')).length, 1, 'one wallet for every Solana currency');
  assert.ok(asked.some((q) => q.startsWith('rejected: expected 0x and 40 hex digits')), asked.join('\n'));
  const config = JSON.parse(readFileSync(join(dir, 'payd.config.json'), 'utf8'));
  assert.equal(config.server.port, 9001);
  assert.equal(config.server.host, '127.0.0.1');
  assert.equal(config.server.publicUrl, 'https://pay.example.com');
  assert.deepEqual(Object.keys(config.methods), ['USDT_TRC20', 'SOL', 'USDC_SOL', 'USDT_BSC', 'USDC_BSC', 'USDT_POLYGON', 'USDC_BASE']);
  assert.deepEqual(config.methods.USDC_SOL, config.methods.SOL);
  assert.deepEqual(config.methods.USDT_BSC, { address: '0x90F79bf6EB2c4f870365E785982E1f101E93b906' });
  assert.deepEqual(config.methods.USDC_BSC, config.methods.USDT_BSC);
  assert.deepEqual(config.methods.USDT_POLYGON, { address: '0x15d34AAf54267DB7D7c367839AAf71A00a2C6A65' });
  assert.deepEqual(config.methods.USDC_BASE, config.methods.USDT_POLYGON);
  assert.equal(config.methods.USDT_TRC20.address, 'TWiw9REQDT97WudRTTnw118xEFGc3HWwuM');
  // The API key is a reference to the environment, never written inline.
  assert.deepEqual(config.methods.USDT_TRC20.apiKey, { env: 'PAYD_TRONGRID_KEY' });
  assert.match(out, /created .*payd\.sqlite/);
  assert.match(out, /methods\.USDT_TRC20\.apiKey +TronGrid API key: environment variable PAYD_TRONGRID_KEY/);
});

/** The optional sections declined: pricing, the console, Telegram, e-mail. */
const NO_EXTRAS = {
  'Price intents in a fiat currency': [false],
  'Turn on the operator console': [false],
  'Tell you about sales and problems on Telegram': [false],
  'Tell you by e-mail': [false],
};

const UPI_ANSWERS = {
  'Accept UPI': [true],
  'Your UPI VPA': ['shop@hdfcbank'],
  'Payee name': ['Chai Shop'],
  'IMAP host': ['imap.example.com'],
  'IMAP port': [''],
  'IMAP over TLS': [true],
  'IMAP user': ['alerts@example.com'],
  'Bank id': [''],
  'Last 4 digits': ['4321'],
  'E-mail address the bank sends the alerts to': [''],
  'Accept USDT on TRON': [false],
  'Accept SOL on Solana': [false],
  'Accept USDT on Solana': [false],
  'Accept USDC on Solana': [false],
  'Accept USDT or USDC on EVM chains': [false],
  ...NO_EXTRAS,
};

test('payd init asks where each secret comes from, lists them, and its next steps run as printed', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'payd-init-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const { prompter } = scripted({
    'Listen address': [''],
    'Listen port': [''],
    'Public base URL': [''],
    'Database file': [''],
    ...UPI_ANSWERS,
    'Where does payd read the IMAP password from': ['file'],
    'File holding the IMAP password': ['secrets/imap-password'],
  });
  let out = '';
  const code = await runCli(['init'], { env: {}, cwd: dir, io: { out: (s) => void (out += s + '\n'), err: (s) => void (out += s + '\n') }, prompter, self: PAYD_BIN });
  assert.equal(code, 0, out);
  const config = JSON.parse(readFileSync(join(dir, 'payd.config.json'), 'utf8'));
  assert.deepEqual(config.methods.UPI.imap.password, { file: 'secrets/imap-password' });
  assert.match(out, new RegExp(`methods\\.UPI\\.imap\\.password +IMAP password: file ${join(dir, 'secrets', 'imap-password').replace(/[/.]/g, '\\$&')}`));
  // The printed steps, pasted into a shell in order with the placeholder filled in, work:
  // the secret file is written, and `merchant create` with the printed --config succeeds.
  const steps = out.slice(out.indexOf('next steps')).split('\n').filter((l) => l.startsWith('  ') && !l.trimStart().startsWith('#')).map((l) => l.trim());
  const runnable = steps.filter((l) => !/ (serve|doctor) /.test(l)).map((l) => l.replace('<the IMAP password>', 'app-password'));
  assert.ok(runnable.some((l) => l.includes('printf')), out);
  assert.ok(runnable.some((l) => l.includes('merchant create')), out);
  for (const line of runnable.filter((l) => !l.includes('merchant create'))) execFileSync('bash', ['-c', line], { cwd: dir });
  assert.equal(readFileSync(join(dir, 'secrets', 'imap-password'), 'utf8'), 'app-password');
  const create = spawnSync('bash', ['-c', runnable.find((l) => l.includes('merchant create'))!], { cwd: dir, encoding: 'utf8' });
  assert.equal(create.status, 0, create.stderr);
  assert.match(create.stdout, /client_secret +sk_live_/);
  assert.ok(steps.some((l) => / serve --config payd\.config\.json$/.test(l)), out);
});

test('payd init --systemd writes credential references that match systemd/payd.service', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'payd-init-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const { prompter, asked } = scripted({
    'Listen address': [''],
    'Listen port': [''],
    'Public base URL': ['https://pay.example.com'],
    ...UPI_ANSWERS,
    'Accept USDT on TRON': [true],
    'Your TRON address': ['TWiw9REQDT97WudRTTnw118xEFGc3HWwuM'],
    'Use a TronGrid API key': [true],
  });
  let out = '';
  const file = join(dir, 'etc', 'payd.config.json');
  const code = await runCli(['init', '--systemd', '--config', file], { env: {}, cwd: dir, io: { out: (s) => void (out += s + '\n'), err: (s) => void (out += s + '\n') }, prompter });
  assert.equal(code, 0, out);
  assert.ok(!asked.some((q) => q.includes('Where does payd read')), 'the systemd profile does not ask for secret sources');
  const config = JSON.parse(readFileSync(file, 'utf8'));
  assert.equal(config.database.file, '/var/lib/payd/payd.sqlite');
  const refs = [config.methods.UPI.imap.password, config.methods.USDT_TRC20.apiKey, config.server.masterKey].map((r) => r.file);
  const unit = readFileSync(new URL('../../systemd/payd.service', import.meta.url), 'utf8');
  const loaded = [...unit.matchAll(/^LoadCredential=([\w-]+):(\S+)$/gm)].map((m) => ({ name: m[1], path: m[2] }));
  for (const ref of refs) {
    const name = /^\$CREDENTIALS_DIRECTORY\/([\w-]+)$/.exec(ref)?.[1];
    assert.ok(name && loaded.some((l) => l.name === name), `${ref} is not a credential of payd.service`);
    assert.ok(out.includes(`/etc/payd/credentials/${name}`), `next steps create ${name}`);
  }
  assert.match(unit, new RegExp(`--config ${config && '/etc/payd/payd.config.json'}`));
  assert.match(out, /^  sudo install -m 0640 -o root -g payd etc\/payd\.config\.json \/etc\/payd\/payd\.config\.json$/m);
  // The database is the service's to create, as its own user.
  assert.equal(existsSync(join(dir, 'var')), false);
  assert.doesNotMatch(out, /created /);
  // The config is valid once its credentials exist.
  const creds = join(dir, 'creds');
  execFileSync('mkdir', ['-p', creds]);
  for (const [n, v] of [['imap-password', 'p'], ['trongrid-key', 'k'], ['master-key', Buffer.alloc(32, 1).toString('base64')]]) writeFileSync(join(creds, n), v);
  const dbless = JSON.parse(readFileSync(file, 'utf8'));
  dbless.database.file = join(dir, 'payd.sqlite');
  writeFileSync(file, JSON.stringify(dbless));
  const migrate = spawnSync(process.execPath, [PAYD_BIN, 'migrate', '--config', file], { cwd: dir, env: { ...process.env, CREDENTIALS_DIRECTORY: creds }, encoding: 'utf8' });
  assert.equal(migrate.status, 0, migrate.stderr);
});

test('init --systemd prints the systemd recipe of docs/operations.md word for word; it parses in bash, creates the payd user before anything needs its group, and never replaces a master key', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'payd-init-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const { prompter } = scripted({
    'Listen address': [''],
    'Listen port': [''],
    'Public base URL': ['https://pay.example.com'],
    ...UPI_ANSWERS,
    'Accept USDT on TRON': [true],
    'Your TRON address': ['TWiw9REQDT97WudRTTnw118xEFGc3HWwuM'],
    'Use a TronGrid API key': [true],
  });
  let out = '';
  const code = await runCli(['init', '--systemd', '--config', 'payd.config.json'], { env: {}, cwd: dir, io: { out: (s) => void (out += s + '\n'), err: (s) => void (out += s + '\n') }, prompter });
  assert.equal(code, 0, out);
  const printed = out.slice(out.indexOf('next steps')).split('\n').slice(1).filter((l) => l.startsWith('  ')).map((l) => l.slice(2)).join('\n');
  const readme = readFileSync(new URL('../../docs/operations.md', import.meta.url), 'utf8');
  const section = readme.slice(readme.indexOf('## Running under systemd'), readme.indexOf('## Going live'));
  const recipe = /```sh\n(id -u payd[\s\S]*?)\n```/.exec(section)?.[1];
  assert.ok(recipe, 'docs/operations.md shows the recipe');
  assert.equal(printed, recipe);

  // Every command parses.
  const parse = spawnSync('bash', ['-n'], { input: recipe, encoding: 'utf8' });
  assert.equal(parse.status, 0, parse.stderr);
  // Run with sudo, id and journalctl recorded instead of run (a stand-in machine with no payd user).
  const run = (keyExists: boolean) => {
    const stubs = `set -e
sudo() { printf '%s\\n' "sudo $*" >> log; if [ "$1" = test ]; then return ${keyExists ? 0 : 1}; fi; if [ "$1" = tee ]; then cat > /dev/null; fi; }
id() { return 1; }
journalctl() { printf '%s\\n' "journalctl $*" >> log; }
`;
    rmSync(join(dir, 'log'), { force: true });
    const r = spawnSync('bash', ['-c', stubs + recipe], { cwd: dir, encoding: 'utf8', timeout: 20_000 });
    assert.equal(r.status, 0, r.stderr);
    return readFileSync(join(dir, 'log'), 'utf8').trim().split('\n');
  };
  const log = run(false);
  const useradd = log.findIndex((l) => l.includes('useradd --system'));
  const firstGroup = log.findIndex((l) => l.includes('-g payd') || l.includes('root:payd') || l.includes('User=payd'));
  assert.ok(useradd >= 0 && useradd < firstGroup, log.join('\n'));
  assert.ok(log.includes('sudo install -d -m 0700 -o root -g root /etc/payd/credentials'), 'credentials: root only');
  assert.ok(log.includes('sudo install -m 0640 -o root -g payd payd.config.json /etc/payd/payd.config.json'));
  for (const c of ['imap-password', 'trongrid-key', 'master-key']) assert.ok(log.includes(`sudo tee /etc/payd/credentials/${c}`), c);
  assert.match(log.find((l) => l.includes('systemd-run'))!, /^sudo systemd-run --quiet --pipe --wait --collect -p User=payd -p LoadCredential=master-key:\/etc\/payd\/credentials\/master-key \/opt\/payd\/bin\/payd --config \/etc\/payd\/payd\.config\.json merchant create --name My shop$/);
  // Pasted again on a machine that has its key: the key is kept.
  assert.ok(!run(true).includes('sudo tee /etc/payd/credentials/master-key'));
});

test('payd init with UPI asks where the bank sends the alerts (required when the IMAP user is not an address) and writes a config payd accepts', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'payd-init-upi-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const { prompter, asked } = scripted({
    'Listen address': [''],
    'Listen port': [9002],
    'Public base URL': [''],
    'Database file': [''],
    'Accept UPI': [true],
    'Your UPI VPA': ['shop@hdfcbank'],
    'Payee name': ['Chai Shop'],
    'IMAP host': ['imap.example.com'],
    'IMAP port': [''],
    'IMAP over TLS': [true],
    'IMAP user': ['alerts'],
    'Bank id': [''],
    'Last 4 digits': ['4321'],
    'E-mail address the bank sends the alerts to': ['', 'not an address', 'Owner@Gmail.com'],
    'Where does payd read the IMAP password from': ['env'],
    'Environment variable holding the IMAP password': [''],
    'Accept USDT on TRON': [false],
    'Accept SOL on Solana': [false],
    'Accept USDT on Solana': [false],
    'Accept USDC on Solana': [false],
    'Accept USDT or USDC on EVM chains': [false],
    ...NO_EXTRAS,
  });
  let out = '';
  const code = await runCli(['init'], { env: {}, cwd: dir, io: { out: (s) => void (out += s), err: (s) => void (out += s) }, prompter });
  assert.equal(code, 0, out);
  assert.ok(asked.filter((a) => a === 'rejected: expected an e-mail address').length === 2, asked.join('\n'));
  const config = JSON.parse(readFileSync(join(dir, 'payd.config.json'), 'utf8'));
  assert.deepEqual(config.methods.UPI.alertRecipients, ['Owner@Gmail.com']);
  assert.equal(parseConfig(config, dir, { PAYD_IMAP_PASSWORD: 'x' }).methods.UPI!.alertRecipients[0], 'Owner@Gmail.com');
});

test('payd init asks, optionally, about pricing, the console and notifications, and writes their sections into a config payd loads', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'payd-init-extras-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const { prompter, asked } = scripted({
    'Listen address': [''],
    'Listen port': [''],
    'Public base URL': ['https://pay.example.com'],
    'Database file': [''],
    'Accept UPI': [false],
    'Accept USDT on TRON': [true],
    'Your TRON address': ['TWiw9REQDT97WudRTTnw118xEFGc3HWwuM'],
    'Use a TronGrid API key': [false],
    'Accept SOL on Solana': [true],
    'Accept USDT on Solana': [false],
    'Accept USDC on Solana': [false],
    'Your Solana wallet address': ['4Nd1mBQtrMJVYVfKf2PJy9NZUZdTAsp7D4xWLs4gDB4T'],
    'Accept USDT or USDC on EVM chains': [false],
    'Price intents in a fiat currency': [true],
    'Fiat currencies to price in': ['rupees', 'inr'],
    // A source that does not exist is refused; then each pair takes the suggested sources.
    'Rate sources for': ['coindcx,nosuch', '', '', ''],
    'Turn on the operator console': [true],
    "The console's address": ['https://pay.example.com/console', ''],
    'Tell you about sales and problems on Telegram': [true],
    'Where does payd read the Telegram bot token from': ['file'],
    'File holding the Telegram bot token': [''],
    'Telegram chat ids': ['@shop', '123456789, -1001234567890'],
    'Tell you by e-mail': [true],
    'SMTP host': ['smtp.example.com'],
    'SMTP port': [''],
    'SMTP user': ['shop@example.com'],
    'Where does payd read the SMTP password from': ['env'],
    'Environment variable holding the SMTP password': [''],
    'From address': ['payd@example.com'],
    'Send to': ['owner@example.com'],
  });
  let out = '';
  const code = await runCli(['init'], { env: {}, cwd: dir, io: { out: (s) => void (out += s + '\n'), err: (s) => void (out += s + '\n') }, prompter });
  assert.equal(code, 0, out);
  assert.ok(asked.includes('rejected: expected some of INR, USD, EUR') || asked.some((q) => q.startsWith('rejected: expected some of INR')), asked.join('\n'));
  assert.ok(asked.some((q) => q.startsWith('rejected: expected some of coindcx')), asked.join('\n'));
  assert.ok(asked.includes('rejected: expected an address like https://pay.example.com (no path)'), asked.join('\n'));
  assert.ok(asked.some((q) => q.startsWith('rejected: expected numeric chat ids')), asked.join('\n'));
  const config = JSON.parse(readFileSync(join(dir, 'payd.config.json'), 'utf8'));
  assert.deepEqual(config.server.console, { enabled: true, origin: 'https://pay.example.com' });
  assert.deepEqual(config.notifications.telegram, { botToken: { file: 'secrets/telegram-bot-token' }, chatIds: ['123456789', '-1001234567890'] });
  assert.deepEqual(config.notifications.email, { host: 'smtp.example.com', port: 587, user: 'shop@example.com', password: { env: 'PAYD_SMTP_PASSWORD' }, from: 'payd@example.com', to: ['owner@example.com'] });
  // Every price in rupees can be paid with both methods: no pair a priced create would lack.
  const loaded = parseConfig(config, dir, { PAYD_SMTP_PASSWORD: 'x' });
  const pegs = pricingPegs(builtinMethods);
  for (const unit of ['USDT', 'SOL']) assert.equal(missingPair(unit, 'INR', (pair) => Object.hasOwn(loaded.pricing.pairs, pair), pegs), null, `${unit}/INR: ${JSON.stringify(config.pricing)}`);
  assert.ok(Object.values(config.pricing.pairs as Record<string, string[]>).every((sources) => sources.length > 0));
  assert.match(out, /notifications\.telegram\.botToken +Telegram bot token: file /);
  assert.match(out, /notifications\.email\.password +SMTP password: environment variable PAYD_SMTP_PASSWORD/);
  // The real CLI loads it (with its secrets in place) and opens the database init created.
  mkdirSync(join(dir, 'secrets'));
  writeFileSync(join(dir, 'secrets', 'telegram-bot-token'), '123456:token');
  const list = spawnSync(process.execPath, [PAYD_BIN, 'intents', 'list', '--config', 'payd.config.json'], { cwd: dir, env: { ...process.env, PAYD_SMTP_PASSWORD: 'x' }, encoding: 'utf8' });
  assert.equal(list.status, 0, list.stderr);
});

test('init --systemd with notifications: the bot token and SMTP password are credentials, and the printed recipe turns on their LoadCredential lines in the unit', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'payd-init-notify-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const { prompter } = scripted({
    'Listen address': [''],
    'Listen port': [''],
    'Public base URL': ['https://pay.example.com'],
    ...UPI_ANSWERS,
    'Tell you about sales and problems on Telegram': [true],
    'Telegram chat ids': ['123456789'],
    'Tell you by e-mail': [true],
    'SMTP host': ['smtp.example.com'],
    'SMTP port': [465],
    'SMTP user': ['shop@example.com'],
    'From address': ['payd@example.com'],
    'Send to': ['owner@example.com'],
  });
  let out = '';
  const code = await runCli(['init', '--systemd', '--config', 'payd.config.json'], { env: {}, cwd: dir, io: { out: (s) => void (out += s + '\n'), err: (s) => void (out += s + '\n') }, prompter });
  assert.equal(code, 0, out);
  const config = JSON.parse(readFileSync(join(dir, 'payd.config.json'), 'utf8'));
  assert.deepEqual(config.notifications.telegram.botToken, { file: '$CREDENTIALS_DIRECTORY/telegram-bot-token' });
  assert.deepEqual(config.notifications.email.password, { file: '$CREDENTIALS_DIRECTORY/smtp-password' });
  assert.equal(config.notifications.email.secure, true);
  // The recipe's lines, run on a copy of the unit, leave it loading both credentials.
  const unitCopy = join(dir, 'payd.service');
  writeFileSync(unitCopy, readFileSync(new URL('../../systemd/payd.service', import.meta.url), 'utf8'));
  const seds = out.split('\n').map((l) => l.trim()).filter((l) => l.startsWith('sudo sed -i'));
  assert.equal(seds.length, 2, out);
  for (const line of seds) execFileSync('bash', ['-c', line.replace('sudo ', '').replace('/etc/systemd/system/payd.service', unitCopy)]);
  const unit = readFileSync(unitCopy, 'utf8');
  for (const name of ['telegram-bot-token', 'smtp-password']) {
    assert.match(unit, new RegExp(`^LoadCredential=${name}:/etc/payd/credentials/${name}$`, 'm'));
    assert.ok(out.includes(`sudo tee /etc/payd/credentials/${name}`), `the recipe writes ${name}`);
  }
  assert.ok(out.indexOf('sudo sed -i') > out.indexOf('sudo cp systemd/payd.service') && out.indexOf('sudo sed -i') < out.indexOf('systemctl enable --now payd'), 'turned on before the service starts');
});
