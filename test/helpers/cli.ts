import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestContext } from 'node:test';
import { fileURLToPath } from 'node:url';
import { runCli } from '../../src/cli/main.ts';

export const PAYD_BIN = fileURLToPath(new URL('../../bin/payd', import.meta.url));

/** Runs the CLI in this process (fast); returns exit code and captured output. */
export async function payd(args: string[], o: { cwd: string; env?: Record<string, string> }) {
  let out = '';
  let err = '';
  const code = await runCli(args, {
    env: { ...(o.env ?? {}) },
    cwd: o.cwd,
    io: { out: (t) => void (out += t.endsWith('\n') ? t : t + '\n'), err: (t) => void (err += t.endsWith('\n') ? t : t + '\n') },
  });
  return { code, out, err, json: () => JSON.parse(out) };
}

/** Starts `bin/payd` as a real child process; resolves once it logs that it is listening. */
export async function spawnPayd(args: string[], o: { cwd: string; env?: Record<string, string> }): Promise<{ child: ChildProcess; url: string; stderr: () => string; exited: Promise<number | null> }> {
  const child = spawn(process.execPath, [PAYD_BIN, ...args], { cwd: o.cwd, env: { ...process.env, ...(o.env ?? {}) }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
  const url = await new Promise<string>((resolve, reject) => {
    // Generous: tsx compiles the whole app at start, which takes many seconds on a loaded machine.
    const timer = setTimeout(() => reject(new Error(`payd did not start in 60 s:\n${stderr}`)), 60_000);
    child.stderr!.on('data', (d) => {
      stderr += d;
      const url = listeningUrl(stderr);
      if (url) {
        clearTimeout(timer);
        resolve(url);
      }
    });
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`payd exited with ${code} before listening:\n${stderr}`));
    });
  });
  return { child, url, stderr: () => stderr, exited };
}

/** The JSON log lines in a process's stderr (other lines skipped). */
export function logLines(stderr: string): Array<Record<string, any>> {
  const out: Array<Record<string, any>> = [];
  for (const line of stderr.split('\n')) {
    if (!line.startsWith('{')) continue;
    try {
      out.push(JSON.parse(line));
    } catch {
      /* a line still being written */
    }
  }
  return out;
}

const listeningUrl = (stderr: string): string | undefined => logLines(stderr).find((l) => l.msg === 'payd listening')?.url;

/** A temporary working directory (removed after the test), with a payd.config.json if given. */
export function workdir(t: TestContext, config?: object) {
  const dir = mkdtempSync(join(tmpdir(), 'payd-golive-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  if (config) writeFileSync(join(dir, 'payd.config.json'), JSON.stringify(config));
  return dir;
}

/** bin/payd as a real child process, run to its end (async, so a test can run several at once). */
export function runPayd(args: string[], cwd: string, env?: Record<string, string>): Promise<{ status: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [PAYD_BIN, ...args], { cwd, env: env && { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
  return new Promise((resolve) =>
    child.on('close', (status) => {
      clearTimeout(timer);
      resolve({ status, stdout, stderr });
    }),
  );
}
