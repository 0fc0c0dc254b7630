// A TCP proxy on 127.0.0.1 in front of one port, that can freeze and heal like a network
// partition: frozen, it accepts connections and keeps every socket open but moves no bytes
// either way and reports nothing to either side (no reset, no close: a silent peer, as a cut
// cable or a dropped route looks); healed, it moves what was held and carries on. A side that
// closed meanwhile has its peer closed at the heal.
import { createServer, connect, type AddressInfo, type Socket } from 'node:net';

export interface TcpProxy {
  port: number;
  freeze(): void;
  heal(): void;
  close(): Promise<void>;
}

interface Pair {
  client: Socket;
  upstream: Socket | null;
  /** Bytes received while frozen, delivered at the heal. */
  held: { toUpstream: Buffer[]; toClient: Buffer[] };
  closed: boolean;
}

export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  let frozen = false;
  const pairs = new Set<Pair>();

  const end = (p: Pair) => {
    if (p.closed) return;
    p.closed = true;
    p.client.destroy();
    p.upstream?.destroy();
    pairs.delete(p);
  };
  const wire = (p: Pair) => {
    const up = connect(target.port, target.host);
    p.upstream = up;
    up.on('data', (d) => (frozen ? p.held.toClient.push(d) : p.client.write(d)));
    up.on('error', () => {});
    up.on('close', () => (frozen ? undefined : end(p)));
    for (const d of p.held.toUpstream.splice(0)) up.write(d);
  };

  const server = createServer((client) => {
    const p: Pair = { client, upstream: null, held: { toUpstream: [], toClient: [] }, closed: false };
    pairs.add(p);
    client.on('data', (d) => (frozen || !p.upstream ? p.held.toUpstream.push(d) : p.upstream.write(d)));
    client.on('error', () => {});
    client.on('close', () => (frozen ? undefined : end(p)));
    // Connecting upstream is part of the network too: a connection made while frozen waits for the heal.
    if (!frozen) wire(p);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));

  return {
    port: (server.address() as AddressInfo).port,
    freeze() {
      frozen = true;
    },
    heal() {
      frozen = false;
      for (const p of [...pairs]) {
        if (p.client.destroyed || p.upstream?.destroyed) {
          end(p);
          continue;
        }
        if (!p.upstream) {
          wire(p);
          continue;
        }
        for (const d of p.held.toUpstream.splice(0)) p.upstream.write(d);
        for (const d of p.held.toClient.splice(0)) p.client.write(d);
      }
    },
    async close() {
      for (const p of [...pairs]) end(p);
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}
