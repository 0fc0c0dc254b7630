import { chmodSync, closeSync, existsSync, fsyncSync, mkdirSync, openSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { basename, extname, join, resolve } from 'node:path';
import { checkSqlite, snapshotSqlite } from '../db/backup.ts';
import { PaydError } from '../domain/errors.ts';
import type { Clock } from '../domain/ports.ts';

export interface BackupRequest {
  /** The SQLite database to back up (the live one, or the sandbox's). */
  dbFile: string;
  /** Where the backup goes; created 0700 when missing. */
  dir: string;
  /** Where the master key this database needs is kept, in words (never the key). */
  masterKeyAt: string;
  clock: Clock;
}

export interface BackupReport {
  file: string;
  bytes: number;
  /** The note beside it: which key it needs, and what was verified. */
  note: string;
  taken_at: string;
  integrity: 'ok';
  rows: Record<string, number>;
  master_key: { fingerprint: string | null; kept_at: string };
}

const stamp = (ms: number) => new Date(ms).toISOString().replace(/[-:]/g, '').replace(/\.\d{3}Z$/, 'Z').replace('T', '-');

/**
 * A consistent snapshot of a running shop's SQLite database into `dir` (0700), the file 0600,
 * verified by opening it (integrity check, rows per table), with a note beside it naming the
 * master key it needs: without that key its client secrets do not verify and its webhook
 * secrets do not unseal. A backup that fails its check is deleted and the command fails.
 */
export function backupDatabase(request: BackupRequest): BackupReport {
  if (!existsSync(request.dbFile)) throw new PaydError('NOT_FOUND', `no database at ${request.dbFile}: nothing to back up`);
  const dir = resolve(request.dir);
  if (!existsSync(dir)) mkdirSync(dir, { recursive: true, mode: 0o700 });
  else if (!statSync(dir).isDirectory()) throw new PaydError('INVALID_REQUEST', `--to ${dir} is not a directory`);
  const takenAt = request.clock.now();
  // Named by the second it was taken; a second backup within that second gets -2, -3, … (never overwrites).
  const base = `${basename(request.dbFile, extname(request.dbFile))}-${stamp(takenAt)}`;
  let name = base;
  for (let n = 2; existsSync(join(dir, `${name}.sqlite`)); n++) name = `${base}-${n}`;
  const file = join(dir, `${name}.sqlite`);
  const note = join(dir, `${name}.txt`);
  const partial = `${file}.partial`;
  rmSync(partial, { force: true }); // left by a backup that was killed
  let check;
  try {
    snapshotSqlite(request.dbFile, partial);
    check = checkSqlite(partial);
    if (check.integrity !== 'ok') throw new PaydError('INTERNAL', `the backup failed its integrity check (${check.integrity}); it was deleted`);
    renameSync(partial, file);
  } catch (err) {
    rmSync(partial, { force: true });
    if (err instanceof PaydError) throw err;
    throw new PaydError('INTERNAL', `backup of ${request.dbFile} into ${dir} failed: ${(err as Error).message}`, { cause: err });
  }
  syncDir(dir);
  const fingerprint = check.masterKeyFingerprint;
  const report: BackupReport = {
    file,
    bytes: statSync(file).size,
    note,
    taken_at: new Date(takenAt).toISOString(),
    integrity: 'ok',
    rows: check.rows,
    master_key: { fingerprint, kept_at: request.masterKeyAt },
  };
  const lines = [
    `payd backup of ${request.dbFile}, taken ${report.taken_at}: ${basename(file)} (${report.bytes} bytes)`,
    `verified by opening it: integrity_check ok; rows: ${Object.entries(check.rows).map(([t, n]) => `${t} ${n}`).join(', ')}`,
    fingerprint
      ? `it needs the master key with fingerprint ${fingerprint}, kept at: ${request.masterKeyAt}. The key is NOT in this backup: back it up separately (without it, client secrets do not verify and webhook secrets do not unseal).`
      : `no master key was used by this database yet (it will use the key kept at: ${request.masterKeyAt}).`,
    `restore: stop payd, copy this file to ${request.dbFile} (remove any ${basename(request.dbFile)}-wal and -shm beside it), put the key back, start payd.`,
  ];
  writeFileSync(note, lines.join('\n') + '\n', { mode: 0o600, flag: 'wx' });
  chmodSync(note, 0o600);
  return report;
}

/** Makes the new names in `dir` durable (a rename is only safe once its directory is synced). */
function syncDir(dir: string): void {
  const fd = openSync(dir, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}
