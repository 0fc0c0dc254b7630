// Loaded into `payd serve` by bench/probes/mem-probe.ts (node --import): on SIGUSR2, appends
// process.memoryUsage() and V8's heap spaces to /tmp/payd-mem-<pid>.txt.
import { appendFileSync } from 'node:fs';
import v8 from 'node:v8';

const mb = (n) => (n / 1048576).toFixed(1);
process.on('SIGUSR2', () => {
  const m = process.memoryUsage();
  const spaces = v8.getHeapSpaceStatistics().map((s) => `${s.space_name}=${mb(s.space_size)}/${mb(s.space_used_size)}`).join(' ');
  appendFileSync(`/tmp/payd-mem-${process.pid}.txt`, `rss ${mb(m.rss)} heapTotal ${mb(m.heapTotal)} heapUsed ${mb(m.heapUsed)} external ${mb(m.external)}\n${spaces}\n`);
});
