// Every relative link in README.md and docs/**/*.md reaches a file, and its #anchor a heading
// (or an <a id>) of that file: sections move between files, and a link left behind fails here.
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

function markdownFiles(): string[] {
  const out = [join(ROOT, 'README.md')];
  (function walk(dir: string) {
    for (const name of readdirSync(dir).sort()) {
      const p = join(dir, name);
      if (statSync(p).isDirectory()) walk(p);
      else if (name.endsWith('.md')) out.push(p);
    }
  })(join(ROOT, 'docs'));
  return out;
}

/** The lines outside fenced code blocks, with their line numbers. */
function prose(text: string): { line: string; n: number }[] {
  const out: { line: string; n: number }[] = [];
  let fenced = false;
  text.split('\n').forEach((line, i) => {
    if (/^\s*```/.test(line)) fenced = !fenced;
    else if (!fenced) out.push({ line, n: i + 1 });
  });
  return out;
}

/** GitHub's heading anchor: rendered text, lower case, punctuation dropped, spaces → '-'. */
export function slug(heading: string): string {
  const text = heading
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/<[^>]+>/g, '')
    .trim()
    .toLowerCase();
  return text.replace(/[^\p{L}\p{M}\p{N}\p{Pc}\- ]/gu, '').replace(/ /g, '-');
}

const anchorCache = new Map<string, Set<string>>();
function anchorsOf(file: string): Set<string> {
  let set = anchorCache.get(file);
  if (set) return set;
  set = new Set();
  const seen = new Map<string, number>();
  for (const { line } of prose(readFileSync(file, 'utf8'))) {
    const h = /^#{1,6} (.*)$/.exec(line);
    if (h) {
      const s = slug(h[1]!);
      const n = seen.get(s) ?? 0;
      seen.set(s, n + 1);
      set.add(n === 0 ? s : `${s}-${n}`);
    }
    for (const a of line.matchAll(/<a (?:id|name)="([^"]+)"/g)) set.add(a[1]!);
  }
  anchorCache.set(file, set);
  return set;
}

/** [text](target) links outside code spans; external ones (scheme:) left out. */
function links(file: string): { target: string; n: number }[] {
  const out: { target: string; n: number }[] = [];
  for (const { line, n } of prose(readFileSync(file, 'utf8'))) {
    const text = line.replace(/`[^`]*`/g, '');
    for (const m of text.matchAll(/\]\(([^)\s]+)\)/g)) {
      if (!/^[a-z][a-z0-9+.-]*:/i.test(m[1]!)) out.push({ target: m[1]!, n });
    }
  }
  return out;
}

test('the anchor of a heading is GitHub\'s', () => {
  assert.equal(slug('Unique pay_amount: capacity and surcharge per price'), 'unique-pay_amount-capacity-and-surcharge-per-price');
  assert.equal(slug('Gmail, Google Workspace and Microsoft 365 (OAuth 2.0)'), 'gmail-google-workspace-and-microsoft-365-oauth-20');
  assert.equal(slug('Events (catch-up)'), 'events-catch-up');
  assert.equal(slug('`payd doctor` and [lag](x.md)'), 'payd-doctor-and-lag');
});

test('every relative link in README.md and docs/ reaches an existing file and heading', () => {
  const files = markdownFiles();
  assert.ok(files.length >= 9, `README.md and the docs (${files.length} files)`);
  const broken: string[] = [];
  let checked = 0;
  for (const file of files) {
    for (const { target, n } of links(file)) {
      checked++;
      const [path, anchor] = target.split('#') as [string, string | undefined];
      const dest = path === '' ? file : resolve(dirname(file), decodeURIComponent(path));
      const where = `${relative(ROOT, file)}:${n} → ${target}`;
      if (!existsSync(dest)) broken.push(`${where}: no such file`);
      else if (anchor !== undefined) {
        if (!dest.endsWith('.md')) broken.push(`${where}: an anchor into a file that is not markdown`);
        else if (!anchorsOf(dest).has(anchor)) broken.push(`${where}: no heading #${anchor} in ${relative(ROOT, dest)}`);
      }
    }
  }
  assert.ok(checked > 40, `found the links (${checked})`);
  assert.deepEqual(broken, []);
});
