import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import crossws from 'crossws/adapters/node';
import type { Peer } from 'crossws';
import type { Clock, Logger } from '../../domain/ports.ts';
import type { IntentService } from '../../services/intents.ts';
import { checkoutState, type CheckoutState } from './state.ts';

export interface CheckoutSocketDeps {
  intents: Pick<IntentService, 'findRow'>;
  clock: Clock;
  log: Logger;
  /** How often each socket re-reads its intent, ms. */
  pollMs?: number;
}

/** What serveHttp needs to hand websocket upgrades to the checkout. */
export interface CheckoutSockets {
  handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void;
  /** Stops every watcher and closes every socket (before the server closes). */
  closeAll(): void;
}

const WS_PATH = /^\/pay\/([^/]+)\/ws$/;

/**
 * Live status for the checkout page. Each socket watches exactly the intent in its
 * URL by re-reading that one row by primary key, so settlements written by any
 * process (sources, the CLI) reach the page; it sends a message only on change.
 */
export function createCheckoutSockets(d: CheckoutSocketDeps): CheckoutSockets {
  const pollMs = d.pollMs ?? 400;
  const watchers = new Map<Peer, { timer?: NodeJS.Timeout; stopped: boolean }>();

  const load = async (intentId: string): Promise<CheckoutState | undefined> => {
    const row = await d.intents.findRow(intentId);
    return row && checkoutState(row, d.clock.now());
  };

  const stop = (peer: Peer) => {
    const w = watchers.get(peer);
    if (!w) return;
    w.stopped = true;
    clearTimeout(w.timer);
    watchers.delete(peer);
  };

  async function watch(peer: Peer, intentId: string): Promise<void> {
    const w: { timer?: NodeJS.Timeout; stopped: boolean } = { stopped: false };
    watchers.set(peer, w);
    let last = '';
    // One read at a time per socket: the next poll is scheduled after this one finishes.
    const tick = async () => {
      if (w.stopped) return;
      try {
        const state = await load(intentId);
        if (w.stopped) return;
        if (!state) return peer.close(4404, 'intent not found');
        // `now` changes every read; compare without it so only real changes are sent.
        const key = `${state.status}|${state.expires_at}|${state.redirect_url}`;
        if (key !== last) {
          last = key;
          peer.send(JSON.stringify(state));
        }
        // Settled is final (an expired intent can still be settled by a late payment).
        if (state.status === 'settled') {
          stop(peer);
          return peer.close(1000, 'settled');
        }
      } catch (err) {
        d.log.warn('checkout status read failed', { intent_id: intentId, error: String(err) });
      }
      if (!w.stopped) w.timer = setTimeout(tick, pollMs);
    };
    await tick();
  }

  const adapter = crossws({
    hooks: {
      async upgrade(request) {
        const id = WS_PATH.exec(new URL(request.url).pathname)?.[1] ?? '';
        // Unknown and malformed ids look the same: the UUID is the only capability.
        if (!(await d.intents.findRow(id))) return new Response('not found', { status: 404 });
        return { context: { intentId: id.toLowerCase() } };
      },
      open(peer) {
        void watch(peer, String(peer.context.intentId));
      },
      // The socket only reports; anything a client sends is ignored.
      message() {},
      close(peer) {
        stop(peer);
      },
      error(peer) {
        stop(peer);
      },
    },
  });

  return {
    handleUpgrade(req, socket, head) {
      const path = (req.url ?? '').split('?')[0];
      if (!WS_PATH.test(path)) {
        socket.end('HTTP/1.1 404 Not Found\r\nconnection: close\r\ncontent-length: 0\r\n\r\n');
        return;
      }
      adapter.handleUpgrade(req, socket, head).catch((err) => {
        d.log.warn('checkout websocket upgrade failed', { error: String(err) });
        socket.destroy();
      });
    },
    closeAll() {
      for (const peer of [...watchers.keys()]) stop(peer);
      adapter.closeAll(1001, 'server shutting down');
      // A client that never answers the close frame must not hold the server open.
      setTimeout(() => adapter.closeAll(undefined, undefined, true), 1000).unref();
    },
  };
}
