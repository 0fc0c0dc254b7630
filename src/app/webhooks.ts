import type { Config } from '../config/read.ts';
import type { HttpPost } from '../webhooks/deliver.ts';
import { createDispatcher, type DispatcherDeps } from '../webhooks/dispatcher.ts';
import { createWebhookPost } from '../webhooks/target.ts';

/**
 * The webhook dispatcher and the connections it posts through; their release is pushed onto
 * `cleanups`. `post` replaces the poster (tests may wrap it).
 */
export function createWebhookDelivery(
  deps: Pick<DispatcherDeps, 'db' | 'merchants' | 'clock' | 'random' | 'log' | 'metrics' | 'allowLoopback'> & { config: Config; holder: string; post?: HttpPost },
  cleanups: Array<() => Promise<void> | void>,
) {
  const { config, allowLoopback } = deps;
  // Webhook connections check the address they connect to (private networks refused unless allowed).
  const webhookTarget = createWebhookPost({ allowPrivateNetworks: config.webhooks.allowPrivateNetworks, allowLoopback });
  cleanups.push(() => webhookTarget.close());
  return createDispatcher({
    db: deps.db,
    holder: deps.holder,
    metrics: deps.metrics,
    merchants: deps.merchants,
    clock: deps.clock,
    random: deps.random,
    log: deps.log.child({ component: 'webhooks' }),
    post: deps.post ?? webhookTarget.post,
    timeoutMs: config.webhooks.timeoutSeconds * 1000,
    retrySchedule: config.webhooks.retrySchedule,
    concurrency: config.webhooks.concurrency,
    allowInsecureUrls: config.webhooks.allowInsecureUrls,
    allowLoopback,
    allowPrivateNetworks: config.webhooks.allowPrivateNetworks,
  });
}
