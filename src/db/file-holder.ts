import { existsSync, readdirSync, statSync } from 'node:fs';

/**
 * Whether process `pid` on this host has `file` open, read from Linux's /proc/<pid>/fd (same
 * device and inode, whatever path or mount namespace it was opened through). null when that
 * cannot be told: no /proc, or the process belongs to another user (run as the daemon's user).
 */
export function processHasFileOpen(pid: number, file: string): boolean | null {
  if (!existsSync('/proc/self/fd')) return null;
  let target: { dev: number; ino: number };
  try {
    target = statSync(file);
  } catch {
    return null;
  }
  let fds: string[];
  try {
    fds = readdirSync(`/proc/${pid}/fd`);
  } catch (err) {
    // No such process: it holds nothing.
    return (err as NodeJS.ErrnoException).code === 'ENOENT' ? false : null;
  }
  for (const fd of fds) {
    try {
      const s = statSync(`/proc/${pid}/fd/${fd}`);
      if (s.dev === target.dev && s.ino === target.ino) return true;
    } catch {
      /* closed meanwhile */
    }
  }
  return false;
}
