// The docs and the shipped unit agree on every secret's systemd credential: a LoadCredential line
// the docs tell an operator to use exists in systemd/payd.service (active or to uncomment), with the
// same file under /etc/payd/credentials/, so a secret put where the docs say is the one payd reads.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';

const root = new URL('../../', import.meta.url);
const unit = readFileSync(new URL('systemd/payd.service', root), 'utf8');
const inUnit = new Map([...unit.matchAll(/^#?LoadCredential=([\w-]+):(\S+)$/gm)].map((m) => [m[1], m[2]]));

test('every LoadCredential the docs name is in the unit with the same file, under /etc/payd/credentials/', () => {
  const docs = ['README.md', ...readdirSync(new URL('docs/', root)).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)];
  let seen = 0;
  for (const doc of docs) {
    for (const m of readFileSync(new URL(doc, root), 'utf8').matchAll(/LoadCredential=([\w-]+):(\/[\w/.-]+)/g)) {
      seen++;
      assert.equal(inUnit.get(m[1]), m[2], `${doc}: LoadCredential=${m[1]}:${m[2]} is not the unit's line`);
    }
  }
  assert.ok(seen >= 3, `only ${seen} credential lines found in the docs`);
  for (const [name, file] of inUnit) assert.match(file, /^\/etc\/payd\/credentials\//, name);
  assert.ok(inUnit.has('telegram-bot-token'), 'the bot token has its line in the unit');
});
