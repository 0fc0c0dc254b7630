// The transaction handle is its own type: a plain database handle is refused at compile time
// where "inside this transaction" is meant. Checked by running tsc on a snippet that misuses it.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../..', import.meta.url));

test('outbox.enqueue accepts a Tx from writeTx and refuses a plain Db (tsc)', () => {
  const dir = mkdtempSync(join(root, 'test', '.tx-type-'));
  try {
    writeFileSync(
      join(dir, 'snippet.ts'),
      `import { writeTx, type Db } from '../../src/db/open.ts';
import { createOutbox } from '../../src/services/events/outbox.ts';
declare const db: Db;
const outbox = createOutbox({ clock: { now: () => 0 }, random: { uuid: () => '', bytes: () => new Uint8Array(), float: () => 0 } as never });
export const ok = writeTx(db, (tx) => outbox.enqueue(tx, 'm', null, 'webhook.test', {}));
export const bad = outbox.enqueue(db, 'm', null, 'webhook.test', {});
`,
    );
    const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');
    const r = spawnSync(process.execPath, [tsc, '--noEmit', '--strict', '--target', 'es2022', '--module', 'nodenext', '--moduleResolution', 'nodenext', '--allowImportingTsExtensions', '--skipLibCheck', join(dir, 'snippet.ts')], { cwd: root, encoding: 'utf8' });
    const errors = r.stdout.split('\n').filter((l) => l.includes('error TS'));
    assert.equal(errors.length, 1, r.stdout);
    assert.match(errors[0]!, /snippet\.ts\(6,\d+\): error TS2345: Argument of type 'Db' is not assignable to parameter of type 'Tx'/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
