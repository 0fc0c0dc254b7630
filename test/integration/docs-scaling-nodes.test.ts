// docs/scaling.md's "Outgrowing one machine" as printed: its node config is a valid config whose
// secrets are the credentials that systemd/payd.service loads once the doc's sed has
// uncommented the database-url line; and its copy command's options exist.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { parseConfig } from '../../src/methods/load-config.ts';
import { payd } from '../helpers/cli.ts';

const DOC = readFileSync(new URL('../../docs/scaling.md', import.meta.url), 'utf8');
const section = DOC.slice(DOC.indexOf('## Outgrowing one machine'));
const UNIT = readFileSync(new URL('../../systemd/payd.service', import.meta.url), 'utf8');

test("docs/scaling.md, Outgrowing one machine: the node config parses, reads the unit's credentials, and the sed turns the unit into a node's", async (t) => {
  const json = /```json\n([\s\S]*?)```/.exec(section)?.[1];
  assert.ok(json, 'the node config block');
  const creds = mkdtempSync(join(tmpdir(), 'payd-creds-'));
  t.after(() => rmSync(creds, { recursive: true, force: true }));
  writeFileSync(join(creds, 'database-url'), 'postgres://payd:pw@db.internal:5432/payd');
  writeFileSync(join(creds, 'master-key'), 'k'.repeat(44));
  const config = parseConfig(JSON.parse(json), creds, { CREDENTIALS_DIRECTORY: creds });
  assert.equal(config.database.url?.reveal(), 'postgres://payd:pw@db.internal:5432/payd');
  assert.equal(config.database.pool, 10);
  assert.equal(config.database.statementTimeoutMs, 5000);
  assert.ok(config.server.masterKey);

  // The doc's sed on the shipped unit: the credential the config names becomes a loaded one.
  const sed = /sed -i 's\|\^(#LoadCredential=database-url:)\|([^|]*)\|'/.exec(section);
  assert.ok(sed, 'the sed line');
  const node = UNIT.replace(new RegExp(`^${sed[1]}`, 'gm'), sed[2]!);
  const loaded = [...node.matchAll(/^LoadCredential=([\w-]+):(\S+)$/gm)].map((m) => m[1]);
  assert.ok(loaded.includes('database-url') && loaded.includes('master-key'), loaded.join(', '));
  assert.doesNotMatch(UNIT, /^LoadCredential=database-url/m, 'SQLite installs keep the line commented');
  assert.match(section, /\/etc\/payd\/credentials\/database-url/);
  assert.match(node, /^LoadCredential=database-url:\/etc\/payd\/credentials\/database-url$/m);

  // The copy command as printed takes its URL from $PAYD_DB_COPY_TO and these options exist.
  assert.match(section, /--preserve-env=PAYD_DB_COPY_TO \/opt\/payd\/bin\/payd --config \/etc\/payd\/payd\.config\.json db copy/);
  const help = await payd(['db', 'copy', '--help'], { cwd: creds });
  assert.equal(help.code, 0);
  for (const option of ['--to <url>', '--to-env <name>', '--from <file>', '--batch <rows>', '--json', 'PAYD_DB_COPY_TO']) assert.ok(help.out.includes(option), `${option} in --help`);
});
