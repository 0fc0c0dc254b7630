/**
 * A second endpoint's listing of the stretch one endpoint is about to work through. The endpoint
 * that serves a scan could leave a payment out of its listing (an index that lacks it, or a
 * provider that hides it) while listing later ones: the checkpoint would move past the payment and
 * no later listing would show it. So, where the pool needs a second endpoint's word, another
 * endpoint lists the same stretch (since the same checkpoint, under the same agreed slot) and what
 * it lists that the serving one did not joins the batch, in slot order, read from the endpoint that
 * listed it. A witness only adds: it cannot hide what the serving endpoint lists, and what it alone
 * shows still needs the pool's quorum to move money.
 */
import type { ConfirmedSignatureInfo } from '@solana/web3.js';
import type { Logger } from '../../domain/ports.ts';
import { describeError } from '../../domain/errors.ts';
import type { UpstreamPool } from '../upstream-pool.ts';
import type { Member } from '../upstream-health.ts';
import type { Batch } from './backlog.ts';
import type { SolanaEndpoint } from './rpc.ts';

export interface Witnessed {
  /** The batch with what only the witness listed, in slot order. */
  batch: Batch;
  /** Signatures only the witness listed, and the witness: read from it, confirmed by the others. */
  extra: Map<string, Member<SolanaEndpoint>>;
}

/**
 * `batch`, as `served` listed it, with what the first other endpoint that answers lists of the same
 * stretch (`list`); undefined when no other endpoint lists it (the stretch is not agreed: nothing of
 * it is worked through this time). A backlog's step is left as it is: its position is a signature
 * the serving endpoint walks from, and the re-scan looks at recent signatures on another endpoint.
 */
export async function witness(
  options: { pool: UpstreamPool<SolanaEndpoint>; log: Logger },
  served: Member<SolanaEndpoint>,
  batch: Batch,
  list: (m: Member<SolanaEndpoint>) => Promise<Batch>,
  signal: AbortSignal,
): Promise<Witnessed | undefined> {
  const extra = new Map<string, Member<SolanaEndpoint>>();
  if (options.pool.quorum <= 1 || batch.kind === 'backlog') return { batch, extra };
  for (const w of options.pool.order()) {
    if (w === served) continue;
    if (signal.aborted) return undefined;
    let theirs: Batch;
    try {
      theirs = await list(w);
    } catch (err) {
      if (signal.aborted) return undefined;
      options.log.warn('solana witness endpoint failed to list; asking the next', { endpoint: w.label, error: describeError(err) });
      continue;
    }
    const mine = new Set(batch.list.map((i) => i.signature));
    const added: ConfirmedSignatureInfo[] = theirs.list.filter((i) => !mine.has(i.signature));
    for (const i of added) extra.set(i.signature, w);
    if (added.length > 0) options.log.warn('solana endpoints list different signatures; reading what only one listed from it', { endpoint: served.label, witness: w.label, added: added.length });
    // Array.prototype.sort is stable: within a slot the serving endpoint's order stays first.
    return { batch: added.length === 0 ? batch : { ...batch, list: [...batch.list, ...added].sort((x, y) => x.slot - y.slot) }, extra };
  }
  return undefined;
}
