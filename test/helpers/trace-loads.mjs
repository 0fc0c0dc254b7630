// Preloaded into a spawned payd (`NODE_OPTIONS=--import=<this file>`): appends the URL of every
// module file the process imports to the file named by PAYD_TRACE_LOADS, one a line, so a test
// can tell which code really ran (dist/ chunks or src/ through tsx). A file, not stderr: module
// hooks run on their own thread, whose writes to stderr may be lost when the process exits.
import { register } from 'node:module';

const hooks = `
import { appendFileSync } from 'node:fs';
let file;
export function initialize(data) { file = data.file; }
export async function load(url, context, next) {
  if (url.startsWith('file:')) appendFileSync(file, url + '\\n');
  return next(url, context);
}`;

if (process.env.PAYD_TRACE_LOADS) {
  register(`data:text/javascript,${encodeURIComponent(hooks)}`, import.meta.url, { data: { file: process.env.PAYD_TRACE_LOADS } });
}
