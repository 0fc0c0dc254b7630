import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import crossws from 'crossws/adapters/node';
import type { Peer } from 'crossws';
import type { Clock, Logger, Wakeups } from '../../domain/ports.ts';
import type { IntentService } from '../../services/intents/index.ts';
import { clientKey, type RateLimiter } from '../rate-limit.ts';
import { checkoutState } from './state.ts';

export interface CheckoutSocketDeps {
  intents: Pick<IntentService, 'find'>;
  clock: Clock;
  log: Logger;
  /** How often an intent's watcher re-reads it, ms (the safety net; a wake-up reads it at once). */
  pollMs?: number;
  /** Changes published by any process on this database (settle, cancel): watchers of those intents read at once. */
  wakeups?: Pick<Wakeups, 'subscribe'>;
  /** Open sockets allowed per intent (a customer has one or two tabs) and in total. */
  maxPerIntent?: number;
  maxTotal?: number;
  /** How long a socket stays open after its intent reached a final state, ms. */
  finalGraceMs?: number;
  /** Per client IP (server.publicRateLimit); an upgrade is a /pay/* request like any other. */
  limiter?: RateLimiter;
  /** The client's address the limiter counts; default: the socket peer. */
  clientAddress?: (req: IncomingMessage) => string | undefined;
}

/** What serveHttp needs to hand websocket upgrades to the checkout. */
export interface CheckoutSockets {
  handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void;
  /** Stops every watcher and closes every socket (before the server closes). */
  closeAll(): void;
  /** Open sockets and intents being watched (tests, metrics). */
  stats(): { sockets: number; watchers: number };
}

const WS_PATH = /^\/pay\/([^/]+)\/ws$/;
/** Statuses after which nothing changes for the page (a late payment after expiry is seen by its slow poll). */
const FINAL = new Set(['settled', 'expired', 'canceled']);
/** 1013 "try again later": the page falls back to polling the status endpoint. */
const TRY_LATER = 1013;

/** One shared reader per watched intent, whatever the number of sockets on it. */
interface Watcher {
  intentId: string;
  peers: Set<Peer>;
  /** The last message sent, so a socket that joins gets the current state at once. */
  last: string | null;
  lastKey: string;
  timer?: NodeJS.Timeout;
  closing?: NodeJS.Timeout;
  stopped: boolean;
  /** A read is under way; `again`: a wake-up came meanwhile, so read once more right after. */
  reading?: boolean;
  again?: boolean;
}

const plainReply = (socket: Duplex, status: string, extra = '') =>
  socket.end(`HTTP/1.1 ${status}\r\nconnection: close\r\ncontent-length: 0\r\n${extra}\r\n`);

/**
 * Live status for the checkout page. Sockets on one intent share a watcher that re-reads
 * that one row by primary key (so settlements written by any process, sources or the
 * CLI, reach the page) and broadcasts only changes. Once the intent is final the sockets
 * are closed after a short grace. Sockets are capped per intent and in total.
 */
export function createCheckoutSockets(deps: CheckoutSocketDeps): CheckoutSockets {
  const pollMs = deps.pollMs ?? 400;
  const maxPerIntent = deps.maxPerIntent ?? 10;
  const maxTotal = deps.maxTotal ?? 1000;
  const graceMs = deps.finalGraceMs ?? 2000;
  const watchers = new Map<string, Watcher>();
  let open = 0;

  const stopWatcher = (w: Watcher) => {
    w.stopped = true;
    clearTimeout(w.timer);
    clearTimeout(w.closing);
    if (watchers.get(w.intentId) === w) watchers.delete(w.intentId);
  };

  const closePeers = (w: Watcher, code: number, reason: string) => {
    stopWatcher(w);
    for (const peer of w.peers) peer.close(code, reason);
  };

  const broadcast = (w: Watcher, message: string) => {
    w.last = message;
    for (const peer of w.peers) peer.send(message);
  };

  // One read at a time per intent: the next is scheduled after this one finishes.
  async function tick(w: Watcher): Promise<void> {
    if (w.stopped || w.closing) return;
    if (w.reading) {
      w.again = true;
      return;
    }
    clearTimeout(w.timer);
    w.reading = true;
    w.again = false;
    try {
      const row = await deps.intents.find(w.intentId);
      if (w.stopped) return;
      if (!row) return closePeers(w, 4404, 'intent not found');
      const state = checkoutState(row, deps.clock.now());
      // `now` changes every read; compare without it so only real changes are sent.
      const key = `${state.status}|${state.expires_at}|${state.redirect_url}|${state.payments}`;
      if (key !== w.lastKey) {
        w.lastKey = key;
        broadcast(w, JSON.stringify(state));
      }
      if (FINAL.has(state.status)) {
        clearTimeout(w.timer);
        w.closing = setTimeout(() => closePeers(w, 1000, state.status), graceMs);
        return;
      }
    } catch (err) {
      deps.log.warn('checkout status read failed', { intent_id: w.intentId, error: String(err) });
    } finally {
      w.reading = false;
    }
    if (w.stopped || w.closing) return;
    if (w.again) return void tick(w);
    w.timer = setTimeout(() => void tick(w), pollMs);
  }

  // A wake-up naming a watched intent reads it now; null (changes may have been missed) reads every one.
  const unsubscribe = deps.wakeups?.subscribe((ids) => {
    if (ids === null) for (const w of watchers.values()) void tick(w);
    else for (const id of ids) {
      const w = watchers.get(id);
      if (w) void tick(w);
    }
  });

  /** Why a new socket on this intent cannot be taken now, or null. */
  const refusal = (intentId: string): string | null => {
    if (open >= maxTotal) return 'too many live connections';
    if ((watchers.get(intentId)?.peers.size ?? 0) >= maxPerIntent) return 'too many live connections for this payment';
    return null;
  };

  const join = (peer: Peer, intentId: string) => {
    const why = refusal(intentId);
    if (why) return peer.close(TRY_LATER, why);
    let w = watchers.get(intentId);
    const fresh = !w;
    if (!w) {
      w = { intentId, peers: new Set(), last: null, lastKey: '', stopped: false };
      watchers.set(intentId, w);
    }
    w.peers.add(peer);
    open++;
    peer.context.watcher = w;
    if (fresh) void tick(w);
    else if (w.last) peer.send(w.last);
  };

  const leave = (peer: Peer) => {
    const w = peer.context.watcher as Watcher | undefined;
    if (!w || !w.peers.delete(peer)) return;
    open--;
    if (w.peers.size === 0) stopWatcher(w);
  };

  const adapter = crossws({
    hooks: {
      async upgrade(request) {
        const id = (WS_PATH.exec(new URL(request.url).pathname)?.[1] ?? '').toLowerCase();
        // Refused before the database is read; checked again on open (upgrades race).
        const why = refusal(id);
        if (why) return new Response(why, { status: 503, headers: { 'retry-after': '5' } });
        // Unknown and malformed ids look the same: the UUID is the only capability.
        if (!(await deps.intents.find(id))) return new Response('not found', { status: 404 });
        return { context: { intentId: id } };
      },
      open(peer) {
        join(peer, String(peer.context.intentId));
      },
      // The socket only reports; anything a client sends is ignored.
      message() {},
      close(peer) {
        leave(peer);
      },
      error(peer) {
        leave(peer);
      },
    },
  });

  return {
    handleUpgrade(req, socket, head) {
      const path = (req.url ?? '').split('?')[0];
      if (!WS_PATH.test(path)) return void plainReply(socket, '404 Not Found');
      const wait = deps.limiter?.take(clientKey(deps.clientAddress ? deps.clientAddress(req) : req.socket.remoteAddress)) ?? 0;
      if (wait > 0) return void plainReply(socket, '429 Too Many Requests', `retry-after: ${wait}\r\n`);
      adapter.handleUpgrade(req, socket, head).catch((err) => {
        deps.log.warn('checkout websocket upgrade failed', { error: String(err) });
        socket.destroy();
      });
    },
    closeAll() {
      unsubscribe?.();
      for (const w of [...watchers.values()]) stopWatcher(w);
      adapter.closeAll(1001, 'server shutting down');
      // A client that never answers the close frame must not hold the server open.
      setTimeout(() => adapter.closeAll(undefined, undefined, true), 1000).unref();
    },
    stats: () => ({ sockets: open, watchers: watchers.size }),
  };
}
