import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { toNodeHandler, type H3 } from 'h3';
import { stringifyJson } from '../domain/json.ts';
import { JSON_TYPE } from './errors.ts';

/** Websocket upgrades (the checkout's live status); the HTTP app itself never sees them. */
export interface UpgradeHandler {
  handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void;
  /** Closes open sockets: upgraded connections would otherwise hold server.close() open. */
  closeAll(): void;
}

export interface RunningServer {
  url: string;
  port: number;
  /** Stops accepting, lets in-flight requests finish (up to `graceMs`), then resolves. */
  close(graceMs?: number): Promise<void>;
}

/** Binds `server`; a failure says what could not listen where (EADDRINUSE, EACCES…). */
export function listen(server: Server, host: string, port: number, what: string): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  }).catch((err: NodeJS.ErrnoException) => {
    throw new Error(`could not ${what} on ${host}:${port}: ${err.code ?? err.message}`);
  });
}

/** Serves the app on Node's own HTTP server (listhen, used before, pulled in ~14 MB of TLS and CLI code). */
export async function serveHttp(app: H3, host: string, port: number, ws?: UpgradeHandler): Promise<RunningServer> {
  const server = createServer(toNodeHandler(app));
  await listen(server, host, port, 'listen');
  // Sockets with no request in flight, so shutdown can drop them at once (browsers open
  // speculative connections that never send a request, which would hold close() open).
  const busy = new Map<Duplex, number>();
  server.on('connection', (socket) => {
    busy.set(socket, 0);
    socket.on('close', () => busy.delete(socket));
  });
  server.on('request', (req, res) => {
    const socket = req.socket;
    if (!socket) return;
    busy.set(socket, (busy.get(socket) ?? 0) + 1);
    res.on('close', () => {
      if (!busy.has(socket)) return;
      const left = (busy.get(socket) ?? 1) - 1;
      busy.set(socket, left);
      if (left === 0 && !server.listening) socket.destroySoon();
    });
  });
  server.on('clientError', (err: NodeJS.ErrnoException, socket: Duplex) => answerUnparsable(err, socket));
  const address = server.address();
  const bound = typeof address === 'object' && address ? address.port : 0;
  const close = (graceMs = 8000) =>
    new Promise<void>((resolve) => {
      if (!server.listening) return resolve();
      ws?.closeAll();
      const force = setTimeout(() => server.closeAllConnections(), graceMs);
      server.close(() => {
        clearTimeout(force);
        resolve();
      });
      server.closeIdleConnections();
      for (const [socket, n] of busy) if (n === 0) socket?.destroy();
    });
  if (ws) server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => ws.handleUpgrade(req, socket, head));
  const h = host.includes(':') ? `[${host}]` : host;
  return { url: `http://${h}:${bound}`, port: bound, close };
}

/**
 * A request Node's parser refuses never reaches the app; Node's own answer is an empty 400.
 * Answer as the API does instead: the usual cause is a URL pasted with a literal `…` or a
 * space, so say that. Timeouts and oversized headers keep Node's plain answers.
 */
function answerUnparsable(err: NodeJS.ErrnoException, socket: Duplex): void {
  if (!socket.writable || err.code === 'ECONNRESET') return void socket.destroy();
  if (err.code === 'ERR_HTTP_REQUEST_TIMEOUT') return void socket.end('HTTP/1.1 408 Request Timeout\r\nConnection: close\r\n\r\n');
  if (err.code === 'HPE_HEADER_OVERFLOW') return void socket.end('HTTP/1.1 431 Request Header Fields Too Large\r\nConnection: close\r\n\r\n');
  const url = err.code === 'HPE_INVALID_URL';
  const body = stringifyJson({
    detail: url
      ? 'the request URL holds a character that must be percent-encoded (a literal "…", a space or another non-ASCII character, often left over from a copied example); nothing was done'
      : 'not a valid HTTP request; nothing was done',
    code: 'INVALID_REQUEST',
    errors: [url ? { field: 'url', message: 'characters outside printable ASCII must be percent-encoded' } : { field: 'request', message: String((err as { reason?: string }).reason ?? err.code ?? 'unparsable') }],
  });
  socket.end(`HTTP/1.1 400 Bad Request\r\ncontent-type: ${JSON_TYPE}\r\ncache-control: no-store\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`);
}
