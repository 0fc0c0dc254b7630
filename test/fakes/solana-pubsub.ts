/**
 * A local Solana PubSub websocket (what `wsUrl` points at) on 127.0.0.1 for tests, answering the
 * one subscription the source makes, in the documented shapes
 * (https://solana.com/docs/rpc/websocket/logssubscribe, logsunsubscribe):
 * - `logsSubscribe` [{ mentions: [pubkey] }, { commitment }] → { jsonrpc, result: <subscription id>, id };
 * - `logsNotification` { params: { result: { context: { slot }, value: { signature, err, logs } }, subscription } };
 * - `logsUnsubscribe` [id] → true. Other messages (web3.js's keep-alive `ping` notification) get no answer.
 * The websocket server is crossws (payd's own websocket library, node adapter).
 */
import crossws from 'crossws/adapters/node';
import type { Peer } from 'crossws';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FakeSolanaPubSub {
  url: string;
  /** Live logs subscriptions: the account each mentions and the commitment asked. */
  subscriptions: Map<number, { account: string; commitment?: string; peer: Peer }>;
  /** Subscription ids the client unsubscribed (logsUnsubscribe), in order. */
  unsubscribed: number[];
  /** Sends a logsNotification to every subscription mentioning `account`; returns how many were sent. */
  notify(account: string, signature: string): number;
  close(): Promise<void>;
}

export async function startFakeSolanaPubSub(): Promise<FakeSolanaPubSub> {
  const subscriptions: FakeSolanaPubSub['subscriptions'] = new Map();
  const unsubscribed: number[] = [];
  const peers = new Set<Peer>();
  let nextId = 1;
  let slot = 5000;
  const send = (peer: Peer, body: unknown) => peer.send(JSON.stringify(body));
  const drop = (peer: Peer) => {
    peers.delete(peer);
    for (const [id, s] of subscriptions) if (s.peer === peer) subscriptions.delete(id);
  };
  const ws = crossws({
    hooks: {
      open: (peer) => void peers.add(peer),
      close: drop,
      error: drop,
      message(peer, message) {
        const msg = JSON.parse(message.text()) as { id?: number | string; method?: string; params?: unknown[] };
        if (msg.method === 'logsSubscribe') {
          const id = nextId++;
          const filter = msg.params?.[0] as { mentions?: string[] } | undefined;
          subscriptions.set(id, { account: filter?.mentions?.[0] ?? '', commitment: (msg.params?.[1] as { commitment?: string } | undefined)?.commitment, peer });
          send(peer, { jsonrpc: '2.0', result: id, id: msg.id });
        } else if (msg.method === 'logsUnsubscribe') {
          const known = subscriptions.delete(Number(msg.params?.[0]));
          if (known) unsubscribed.push(Number(msg.params?.[0]));
          send(peer, known ? { jsonrpc: '2.0', result: true, id: msg.id } : { jsonrpc: '2.0', error: { code: -32602, message: 'Invalid subscription id.' }, id: msg.id });
        }
      },
    },
  });
  const server: Server = createServer((_req, res) => res.writeHead(426).end());
  server.on('upgrade', (req, socket, head) => void ws.handleUpgrade(req, socket, head).catch(() => socket.destroy()));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `ws://127.0.0.1:${(server.address() as AddressInfo).port}`,
    subscriptions,
    unsubscribed,
    notify(account, signature) {
      let sent = 0;
      slot += 1;
      for (const [id, s] of subscriptions) {
        if (s.account !== account) continue;
        send(s.peer, { jsonrpc: '2.0', method: 'logsNotification', params: { result: { context: { slot }, value: { signature, err: null, logs: ['Program 11111111111111111111111111111111 invoke [1]', 'Program 11111111111111111111111111111111 success'] } }, subscription: id } });
        sent++;
      }
      return sent;
    },
    close: () =>
      new Promise<void>((resolve) => {
        ws.closeAll();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
