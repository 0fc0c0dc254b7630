// Summarises a V8 .cpuprofile (from `npm run bench -- api --profile`): where self time goes,
// by function and by package/file. Usage: node --import tsx bench/lib/profile.ts <file|dir> [top]
// (for a directory, its largest .cpuprofile: the main thread's, not tsx's loader thread's).
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

/** node_modules/<pkg>, src/<dir>/<file>, node:internal… — coarse enough to read at a glance. */
function bucket(url: string): string {
  if (!url) return '(native/gc/idle)';
  const nm = url.match(/node_modules\/((?:@[^/]+\/)?[^/]+)/);
  if (nm) return `pkg ${nm[1]}`;
  const src = url.match(/\/((?:src|dist)\/.+)$/);
  if (src) return src[1];
  if (url.startsWith('node:')) return url.replace(/^node:internal\/.*/, 'node:internal');
  return url.replace(/^file:\/\//, '');
}

export function summarise(p: Profile, top = 25): string {
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const selfUs = new Map<number, number>();
  p.samples.forEach((id, i) => selfUs.set(id, (selfUs.get(id) ?? 0) + (p.timeDeltas[i] ?? 0)));
  const total = [...selfUs.values()].reduce((a, b) => a + b, 0);
  const fns = new Map<string, number>();
  const files = new Map<string, number>();
  for (const [id, us] of selfUs) {
    const f = byId.get(id)!.callFrame;
    if (f.functionName === '(idle)') continue;
    const key = `${f.functionName || '(anonymous)'}  ${bucket(f.url)}${f.url ? `:${f.lineNumber + 1}` : ''}`;
    fns.set(key, (fns.get(key) ?? 0) + us);
    files.set(bucket(f.url), (files.get(bucket(f.url)) ?? 0) + us);
  }
  // Inclusive time of payd's own functions (self + callees), counted once per stack.
  const inclusive = new Map<string, number>();
  const parent = new Map<number, number>();
  for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  for (const [id, us] of selfUs) {
    const seen = new Set<string>();
    for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur)) {
      const f = byId.get(cur)!.callFrame;
      const b = bucket(f.url);
      if (!b.startsWith('src/') && !b.startsWith('dist/')) continue;
      const key = `${f.functionName || '(anonymous)'}  ${b}:${f.lineNumber + 1}`;
      if (seen.has(key)) continue;
      seen.add(key);
      inclusive.set(key, (inclusive.get(key) ?? 0) + us);
    }
  }
  const idle = [...selfUs].filter(([id]) => byId.get(id)!.callFrame.functionName === '(idle)').reduce((a, [, us]) => a + us, 0);
  const pct = (us: number) => `${((100 * us) / total).toFixed(1).padStart(5)} %`;
  const list = (m: Map<string, number>) => [...m].sort((a, b) => b[1] - a[1]).slice(0, top).map(([k, us]) => `  ${pct(us)}  ${k}`);
  return [`total ${(total / 1e6).toFixed(1)} s sampled, idle ${pct(idle).trim()}`, 'self time by file/package:', ...list(files), 'self time by function:', ...list(fns), 'inclusive time of src/ functions:', ...list(inclusive)].join('\n');
}

if (import.meta.url === `file://${process.argv[1]}`) {
  let file = process.argv[2];
  if (file && statSync(file).isDirectory()) {
    const dir = file;
    const largest = readdirSync(dir).filter((f) => f.endsWith('.cpuprofile')).map((f) => join(dir, f)).sort((a, b) => statSync(b).size - statSync(a).size)[0];
    file = largest ?? '';
  }
  if (!file) {
    console.error('usage: node --import tsx bench/lib/profile.ts <file.cpuprofile> [top]');
    process.exit(2);
  }
  console.log(summarise(JSON.parse(readFileSync(file, 'utf8')) as Profile, Number(process.argv[3] ?? 25)));
}
