import { closeSync, fsyncSync, openSync, renameSync, statSync, unlinkSync, writeSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { randomBytes } from 'node:crypto';

/**
 * Writes a secret to `file` readable by its owner only, also when `file` already exists at a
 * wider mode: the secret goes into a new 0600 file beside it, which then replaces it (an
 * existing file's mode would survive a write into it). Returns the mode the file has now
 * ("0600"), read back, so what the caller prints is what is on disk.
 */
export function writeSecretFile(file: string, content: string): string {
  const temp = join(dirname(file), `.${basename(file)}.${randomBytes(6).toString('hex')}.tmp`);
  const fd = openSync(temp, 'wx', 0o600);
  try {
    try {
      writeSync(fd, content);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(temp, file);
  } catch (err) {
    try {
      unlinkSync(temp);
    } catch {
      /* already renamed or never written */
    }
    throw err;
  }
  return (statSync(file).mode & 0o777).toString(8).padStart(4, '0');
}
