/**
 * A local Solana PubSub websocket (what `wsUrl` points at) on 127.0.0.1 for tests, answering the
 * one subscription the source makes, in the documented shapes
 * (https://solana.com/docs/rpc/websocket/logssubscribe, logsunsubscribe):
 * - `logsSubscribe` [{ mentions: [pubkey] }, { commitment }] → { jsonrpc, result: <subscription id>, id };
 * - `logsNotification` { params: { result: { context: { slot }, value: { signature, err, logs } }, subscription } };
 * - `logsUnsubscribe` [id] → true. Other messages (web3.js's keep-alive `ping` notification) get no answer.
 * The websocket itself is a minimal RFC 6455 server: text frames, ping → pong, close.
 */
import { createHash } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

const GUID = '258EAFA5-E914-47DA-95CA-C5AB0DC85B11'; // RFC 6455 §1.3

export interface FakeSolanaPubSub {
  url: string;
  /** Live logs subscriptions: the account each mentions and the commitment asked. */
  subscriptions: Map<number, { account: string; commitment?: string; socket: Socket }>;
  /** Subscription ids the client unsubscribed (logsUnsubscribe), in order. */
  unsubscribed: number[];
  /** Sends a logsNotification to every subscription mentioning `account`; returns how many were sent. */
  notify(account: string, signature: string): number;
  close(): Promise<void>;
}

function frame(opcode: number, payload: Buffer): Buffer {
  const len = payload.length;
  const head = len < 126 ? Buffer.from([0x80 | opcode, len]) : len < 65536 ? Buffer.from([0x80 | opcode, 126, len >> 8, len & 0xff]) : Buffer.concat([Buffer.from([0x80 | opcode, 127]), bigLength(len)]);
  return Buffer.concat([head, payload]);
}

function bigLength(len: number): Buffer {
  const b = Buffer.alloc(8);
  b.writeBigUInt64BE(BigInt(len));
  return b;
}

/** Complete frames at the start of `buf` (client frames are always masked); returns them and the rest. */
function readFrames(buf: Buffer): { frames: { opcode: number; payload: Buffer }[]; rest: Buffer } {
  const frames: { opcode: number; payload: Buffer }[] = [];
  let off = 0;
  while (buf.length - off >= 2) {
    const opcode = buf[off]! & 0x0f;
    let len = buf[off + 1]! & 0x7f;
    let at = off + 2;
    if (len === 126) {
      if (buf.length - at < 2) break;
      len = buf.readUInt16BE(at);
      at += 2;
    } else if (len === 127) {
      if (buf.length - at < 8) break;
      len = Number(buf.readBigUInt64BE(at));
      at += 8;
    }
    if (buf.length - at < 4 + len) break;
    const mask = buf.subarray(at, at + 4);
    const payload = Buffer.from(buf.subarray(at + 4, at + 4 + len));
    for (let i = 0; i < payload.length; i++) payload[i]! ^= mask[i % 4]!;
    frames.push({ opcode, payload });
    off = at + 4 + len;
  }
  return { frames, rest: buf.subarray(off) };
}

export async function startFakeSolanaPubSub(): Promise<FakeSolanaPubSub> {
  const subscriptions: FakeSolanaPubSub['subscriptions'] = new Map();
  const unsubscribed: number[] = [];
  const sockets = new Set<Socket>();
  let nextId = 1;
  let slot = 5000;
  const send = (socket: Socket, body: unknown) => socket.write(frame(0x1, Buffer.from(JSON.stringify(body))));

  const server: Server = createServer((_req, res) => res.writeHead(426).end());
  server.on('upgrade', (req, socket: Socket) => {
    const key = req.headers['sec-websocket-key'];
    if (typeof key !== 'string') return socket.destroy();
    const accept = createHash('sha1').update(key + GUID).digest('base64');
    socket.write(`HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: ${accept}\r\n\r\n`);
    sockets.add(socket);
    let pending: Buffer = Buffer.alloc(0);
    const drop = () => {
      sockets.delete(socket);
      for (const [id, s] of subscriptions) if (s.socket === socket) subscriptions.delete(id);
    };
    socket.on('close', drop);
    socket.on('error', drop);
    socket.on('data', (chunk) => {
      const { frames, rest } = readFrames(Buffer.concat([pending, chunk]));
      pending = rest;
      for (const f of frames) {
        if (f.opcode === 0x8) {
          socket.end(frame(0x8, Buffer.alloc(0)));
          continue;
        }
        if (f.opcode === 0x9) {
          socket.write(frame(0xa, f.payload));
          continue;
        }
        if (f.opcode !== 0x1) continue;
        const msg = JSON.parse(f.payload.toString('utf8')) as { id?: number | string; method?: string; params?: unknown[] };
        if (msg.method === 'logsSubscribe') {
          const id = nextId++;
          const filter = msg.params?.[0] as { mentions?: string[] } | undefined;
          subscriptions.set(id, { account: filter?.mentions?.[0] ?? '', commitment: (msg.params?.[1] as { commitment?: string } | undefined)?.commitment, socket });
          send(socket, { jsonrpc: '2.0', result: id, id: msg.id });
        } else if (msg.method === 'logsUnsubscribe') {
          const known = subscriptions.delete(Number(msg.params?.[0]));
          if (known) unsubscribed.push(Number(msg.params?.[0]));
          send(socket, known ? { jsonrpc: '2.0', result: true, id: msg.id } : { jsonrpc: '2.0', error: { code: -32602, message: 'Invalid subscription id.' }, id: msg.id });
        }
      }
    });
  });
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
        send(s.socket, { jsonrpc: '2.0', method: 'logsNotification', params: { result: { context: { slot }, value: { signature, err: null, logs: ['Program 11111111111111111111111111111111 invoke [1]', 'Program 11111111111111111111111111111111 success'] } }, subscription: id } });
        sent++;
      }
      return sent;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
