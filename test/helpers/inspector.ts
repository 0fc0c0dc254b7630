// One real inspector worker thread (src/methods/upi/inspector-pool.ts) shared by a test file's
// payd instances: each source run would otherwise start its own, and through tsx on a loaded
// machine a worker takes seconds to load its TypeScript. Started (warmed) before the first mail.
import type { InspectAlert } from '../../src/methods/upi/imap-source.ts';
import { createInspectorPool, type InspectorPool } from '../../src/methods/upi/inspector-pool.ts';
import { memoryLogger } from './upi-imap-fakes.ts';

let pool: InspectorPool | undefined;
let warm: Promise<unknown> | undefined;

/** The shared inspector, started; `timeoutMs` generous: an ordinary alert on a loaded machine is not a hostile one. */
export async function sharedInspector(timeoutMs = 30_000): Promise<InspectAlert> {
  pool ??= createInspectorPool({ timeoutMs, log: memoryLogger() });
  warm ??= pool.inspect(Buffer.from('From: warm-up@example.com\r\n\r\n'), { accounts: [], alertRecipients: [], dkimRequired: true, resolver: async () => [] });
  await warm;
  return pool.inspect;
}
