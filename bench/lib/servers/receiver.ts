// A merchant's webhook endpoint on 127.0.0.1 in its own process (so it does not share
// payd's event loop): answers 200 and reports each arrival's order_id and epoch time (ms, sub-ms).
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serveChild } from '../child.ts';

export interface ReceiverData {
  url: string;
}
export interface Arrival {
  orderId: string;
  at: number;
}

const nowMs = () => performance.timeOrigin + performance.now();

serveChild<ReceiverData>(async () => {
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const at = nowMs();
      res.writeHead(200).end('ok');
      let orderId = '';
      try {
        orderId = String(JSON.parse(Buffer.concat(chunks).toString('utf8'))?.data?.order_id ?? '');
      } catch {
        /* not a payd event: reported with an empty order id */
      }
      process.send?.({ type: 'event', data: { orderId, at } satisfies Arrival });
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    data: { url: `http://127.0.0.1:${port}/hook` },
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
});
