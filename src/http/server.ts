import { toNodeHandler, type H3 } from 'h3';
import { listen, type Listener } from 'listhen';

export interface RunningServer {
  url: string;
  port: number;
  /** Stops accepting, lets in-flight requests finish, then resolves. */
  close(): Promise<void>;
}

/** Serves the app with listhen (through toNodeHandler: passing the app itself hangs). */
export async function serveHttp(app: H3, host: string, port: number): Promise<RunningServer> {
  const listener: Listener = await listen(toNodeHandler(app), {
    hostname: host,
    // An object port disables listhen's "pick another port" fallback; 0 asks the OS for a free one.
    port: { port, random: port === 0, ports: [], portRange: [], alternativePortRange: [] } as never,
    public: host === '0.0.0.0' || host === '::',
    showURL: false,
    qr: false,
    open: false,
    clipboard: false,
    isProd: true,
    autoClose: false,
    tunnel: false,
  });
  const address = listener.server.address();
  const bound = typeof address === 'object' && address ? address.port : 0;
  if (port !== 0 && bound !== port) {
    await listener.close();
    throw new Error(`could not listen on ${host}:${port}`);
  }
  const h = host.includes(':') ? `[${host}]` : host;
  return { url: `http://${h}:${bound}`, port: bound, close: () => listener.close() };
}
