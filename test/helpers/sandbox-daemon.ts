// A real `payd serve --sandbox` (bin/payd, the built bundle) with one merchant whose webhooks go
// to a loopback receiver: what the client libraries are tested against, as a merchant's
// developer runs them against `payd demo`.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { payd, spawnPayd } from './cli.ts';
import { startReceiver } from './receiver.ts';

export interface SandboxDaemon {
  url: string;
  dir: string;
  clientId: string;
  clientSecret: string;
  webhookSecret: string;
  receiver: Awaited<ReturnType<typeof startReceiver>>;
  /** Another merchant of this daemon (its own rate-limit bucket), without a webhook URL. */
  merchant(): Promise<{ clientId: string; clientSecret: string }>;
  /** A simulated customer payment (`payd sandbox pay`): the exact pay_amount, or `amount`. */
  pay(intentId: string, amount?: string): Promise<{ code: number; out: string; err: string }>;
  close(): Promise<void>;
}

export async function startSandboxDaemon(o: { rateLimit?: { perSecond: number; burst: number } } = {}): Promise<SandboxDaemon> {
  const receiver = await startReceiver();
  const dir = mkdtempSync(join(tmpdir(), 'payd-client-'));
  writeFileSync(
    join(dir, 'payd.config.json'),
    JSON.stringify({
      database: { file: 'data/payd.sqlite' },
      server: { port: 0, rateLimit: o.rateLimit ?? { perSecond: 0, burst: 1 } },
      webhooks: { retrySchedule: [1, 1, 1], timeoutSeconds: 2, allowLoopback: true },
    }),
  );
  const created = await payd(['merchant', 'create', '--sandbox', '--name', 'Client shop', '--webhook-url', receiver.url, '--json'], { cwd: dir });
  if (created.code !== 0) throw new Error(`merchant create failed: ${created.err}`);
  const m = created.json();
  const daemon = await spawnPayd(['serve', '--sandbox', '--port', '0'], { cwd: dir });
  return {
    url: daemon.url,
    dir,
    clientId: m.client_id,
    clientSecret: m.client_secret,
    webhookSecret: m.webhook_secret,
    receiver,
    async merchant() {
      const other = await payd(['merchant', 'create', '--sandbox', '--name', 'Another shop', '--json'], { cwd: dir });
      if (other.code !== 0) throw new Error(`merchant create failed: ${other.err}`);
      return { clientId: other.json().client_id, clientSecret: other.json().client_secret };
    },
    pay: (intentId, amount) => payd(['sandbox', 'pay', intentId, ...(amount ? ['--amount', amount] : [])], { cwd: dir }),
    async close() {
      daemon.child.kill('SIGTERM');
      await Promise.race([daemon.exited, new Promise((r) => setTimeout(r, 10_000))]);
      daemon.child.kill('SIGKILL');
      await receiver.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
