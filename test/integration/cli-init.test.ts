import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import type { Prompter } from '../../src/cli/commands/init.ts';
import { runCli } from '../../src/cli/main.ts';
import { parseConfig } from '../../src/config/load.ts';

/** Answers each question from a script, running the question's own validation like the terminal would. */
function scripted(answers: Record<string, (string | boolean | number)[]>) {
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
    'Accept SOL on Solana': [false],
    'Accept USDT on Solana': [false],
  });
  let out = '';
  const code = await runCli(['init'], { env: {}, cwd: dir, io: { out: (s) => void (out += s), err: (s) => void (out += s) }, prompter });
  assert.equal(code, 0, out);
  assert.ok(asked.includes('rejected: expected a TRON address (T…)'), asked.join('\n'));
  const config = JSON.parse(readFileSync(join(dir, 'payd.config.json'), 'utf8'));
  assert.equal(config.server.port, 9001);
  assert.equal(config.server.host, '127.0.0.1');
  assert.equal(config.server.publicUrl, 'https://pay.example.com');
  assert.deepEqual(Object.keys(config.methods), ['USDT_TRC20']);
  assert.equal(config.methods.USDT_TRC20.address, 'TWiw9REQDT97WudRTTnw118xEFGc3HWwuM');
  // The API key is a reference to the environment, never written inline.
  assert.deepEqual(config.methods.USDT_TRC20.apiKey, { env: 'PAYD_TRONGRID_KEY' });
  assert.match(out, /created .*payd\.sqlite/);
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
    'Accept USDT on TRON': [false],
    'Accept SOL on Solana': [false],
    'Accept USDT on Solana': [false],
  });
  let out = '';
  const code = await runCli(['init'], { env: {}, cwd: dir, io: { out: (s) => void (out += s), err: (s) => void (out += s) }, prompter });
  assert.equal(code, 0, out);
  assert.ok(asked.filter((a) => a === 'rejected: expected an e-mail address').length === 2, asked.join('\n'));
  const config = JSON.parse(readFileSync(join(dir, 'payd.config.json'), 'utf8'));
  assert.deepEqual(config.methods.UPI.alertRecipients, ['Owner@Gmail.com']);
  assert.equal(parseConfig(config, dir, { PAYD_IMAP_PASSWORD: 'x' }).methods.UPI!.alertRecipients[0], 'Owner@Gmail.com');
});
