import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  headers: IncomingHttpHeaders;
  body: string;
  at: number;
}

/** A merchant's webhook endpoint on 127.0.0.1: records every request; answers as told. */
export async function startReceiver(respond: (req: Received, n: number) => number | 'hang' | 'reset' = () => 200) {
  const received: Received[] = [];
  const waiters: Array<() => void> = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const r = { headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), at: Date.now() };
      received.push(r);
      for (const w of waiters.splice(0)) w();
      const answer = respond(r, received.length);
      if (answer === 'hang') return; // never answers: the sender's timeout must fire
      if (answer === 'reset') return req.socket.destroy();
      res.writeHead(answer, answer === 301 ? { location: 'http://127.0.0.1:1/elsewhere' } : {});
      res.end('ok');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    port,
    received,
    /** Resolves once `n` requests arrived, or rejects after `ms`. */
    async waitFor(n: number, ms = 5000): Promise<Received[]> {
      const deadline = Date.now() + ms;
      while (received.length < n) {
        const left = deadline - Date.now();
        if (left <= 0) throw new Error(`expected ${n} webhook requests, got ${received.length}`);
        await new Promise<void>((r) => {
          const t = setTimeout(r, left);
          waiters.push(() => {
            clearTimeout(t);
            r();
          });
        });
      }
      return received;
    },
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
