/**
 * A local stand-in for TronGrid's
 * GET /v1/accounts/{address}/transactions/trc20, shaped after its docs:
 * - https://developers.tron.network/reference/get-trc20-transaction-info-by-account-address
 * - https://developers.tron.network/docs/get-trc20-transaction-history
 * - https://github.com/TRON-US/trongrid (README: only_confirmed / only_to / order_by /
 *   min_timestamp alias of min_block_timestamp / fingerprint paging, limit max 200)
 * Envelope: { data: [...], success: true, meta: { at, page_size, fingerprint?, links?: { next } } }.
 * Item: { transaction_id, token_info: { symbol, address, decimals, name }, block_timestamp, from, to, type, value }
 * (LedgerHQ/ledger-live coin-tron fetchTronAccountTxsTrc20.fixture.json@9eb7868b, minus `detail`).
 * Several rows may share a transaction_id (one transaction, several Transfer events;
 * vsys-host/shkeeper.io#99), and a row may be indexed late (`indexed: false` until
 * `index()`; TRON-US/trongrid#16, trustwallet/blockatlas#969).
 * Faults are what TronGrid sends (test/fixtures/chains/REAL-UPSTREAMS.md §1.3): no Retry-After header ever;
 * 429 `{"Error":"request rate of (getTrc20TransactionsByAccount) exceeded the allowed_rps(1),
 * and the query server is suspended for 5 s. …"}` (measured, index id 68918975262);
 * 403 as a rate limit (developers.tron.network/reference-link/rate-limits) with the older
 * body `{"Error":"request rate exceeded the allowed_rps(10), and the query server is
 * suspended for 5 s"}` (iexbase/tron-api#171); 503 for over-limit (tronprotocol/tronweb#237);
 * 401 `{"Error":"ApiKey not exists"}` (TRON-US/trongrid#20); an error inside an HTTP 200
 * (LedgerHQ/ledger-live trongridNew.ts@4173596b).
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';
import { TronWeb } from 'tronweb';

export const USDT = 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t';
export const OTHER_TOKEN = 'TEkxiTehnzSmSe2XqrBj4w32RUN966rdz8'; // USDC on TRON
export const MERCHANT = 'TJmmqjb1DK9TTZbQXzRQ2AuA94z4gKAPFh';
export const CUSTOMER = 'TLCuBEirVzB6V4menLZKw1jfBTFMZbuKq7';
export const STRANGER = 'TXYZopYRdj2D9XRtbG411XZZ3kM5VkAeBf';

export interface FakeTransfer {
  transaction_id: string;
  block_timestamp: number;
  from: string;
  to: string;
  type: 'Transfer' | 'Approval';
  value: string;
  token: { address: string; symbol: string; decimals: number; name: string };
  confirmed: boolean;
  /** False while TronGrid has not indexed the row yet: not listed at all. */
  indexed: boolean;
}

/** What the next requests get instead of a normal answer: a status with TronGrid's body for it (or `body`), or no answer. */
export type Fault = { status: number; body?: unknown; times: number } | { hang: true; times: number };

export const RATE_LIMIT_429 =
  'request rate of (getTrc20TransactionsByAccount) exceeded the allowed_rps(1), and the query server is suspended for 5 s. To obtain higher request quotas … API Key …';
export const RATE_LIMIT_403 = 'request rate exceeded the allowed_rps(10), and the query server is suspended for 5 s';

/** TronGrid's body for a fault status (test/fixtures/chains/REAL-UPSTREAMS.md §1.3); 503's body is not recorded, so plain text. */
function faultBody(status: number): unknown {
  if (status === 429 || status === 200) return { Error: RATE_LIMIT_429 };
  if (status === 403) return { Error: RATE_LIMIT_403 };
  if (status === 401) return { Error: 'ApiKey not exists' };
  if (status === 503) return 'Service Temporarily Unavailable';
  return { success: false, error: `fault ${status}`, statusCode: status }; // v1 envelope, as the sporadic 404 (TRON-US/trongrid#9)
}

export interface FakeTronGrid {
  url: string;
  transfers: FakeTransfer[];
  /** Every request URL seen, in order, with the time it arrived (ms). */
  requests: { url: URL; at: number; apiKey: string | undefined }[];
  /** Items served per transaction id, to see re-listing. */
  served: Map<string, number>;
  faults: Fault[];
  /** When set, requests without this TRON-PRO-API-KEY get 401. */
  apiKey?: string;
  /** GET /walletsolidity/getnowblock requests (kept apart from `requests`, the listings; `faults` apply to them only with `faultsHitHead`). */
  headRequests: number;
  /** Faults answer head reads too (an endpoint rate-limited or down as a whole). */
  faultsHitHead?: boolean;
  /**
   * Blocks this endpoint trails the chain by (a lagging provider): its head is that much older and
   * its listings end there. 0 (default): up to date. Two fakes may share one `transfers` list.
   */
  behindBlocks: number;
  /** The solidified head stops moving (a node or indexer that is stuck) until resumeHead(). */
  freezeHead(): void;
  resumeHead(): void;
  add(t: Partial<FakeTransfer> & { value: string }): FakeTransfer;
  confirm(txid: string): void;
  /** TronGrid back-fills the rows of a transaction it had not listed. */
  index(txid: string): void;
  close(): Promise<void>;
}

export const txid = (): string => randomBytes(32).toString('hex');

export async function startFakeTronGrid(): Promise<FakeTronGrid> {
  const fake = {
    url: '',
    transfers: [] as FakeTransfer[],
    requests: [] as FakeTronGrid['requests'],
    served: new Map<string, number>(),
    faults: [] as Fault[],
    apiKey: undefined as string | undefined,
    headRequests: 0,
    behindBlocks: 0,
  } as FakeTronGrid;
  const hanging = new Set<ServerResponse>();
  let frozen: number | undefined;
  const server = createServer((req, res) => {
    if (new URL(req.url ?? '/', fake.url).pathname !== '/walletsolidity/getnowblock') return handle(fake, req, res, hanging);
    fake.headRequests += 1;
    const fault = fake.faults[0];
    // A fault meant for the whole endpoint (a rate limit, an outage) applies to the head too.
    if (fault && fake.faultsHitHead) return void serveFault(fake, res, hanging);
    send(res, 200, nowBlock(headOf(fake, frozen)));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  fake.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  fake.add = (t) => {
    const item: FakeTransfer = {
      transaction_id: t.transaction_id ?? txid(),
      block_timestamp: t.block_timestamp ?? Date.now() - 60_000,
      from: t.from ?? CUSTOMER,
      to: t.to ?? MERCHANT,
      type: t.type ?? 'Transfer',
      value: t.value,
      token: t.token ?? { address: USDT, symbol: 'USDT', decimals: 6, name: 'Tether USD' },
      confirmed: t.confirmed ?? true,
      indexed: t.indexed ?? true,
    };
    fake.transfers.push(item);
    return item;
  };
  fake.confirm = (id) => {
    const t = fake.transfers.find((x) => x.transaction_id === id);
    if (!t) throw new Error(`no transfer ${id}`);
    t.confirmed = true;
  };
  fake.index = (id) => {
    const rows = fake.transfers.filter((x) => x.transaction_id === id);
    if (rows.length === 0) throw new Error(`no transfer ${id}`);
    for (const r of rows) r.indexed = true;
  };
  fake.freezeHead = () => {
    frozen = solidifiedBlock();
  };
  fake.resumeHead = () => {
    frozen = undefined;
  };
  fake.close = async () => {
    for (const res of hanging) res.destroy();
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
  return fake;
}

/** TRON makes a block every 3 s; the solidified head trails the newest block by 19 (about 57 s). */
const solidifiedBlock = (): number => Math.floor(Date.now() / 3000) - 19 - 500_000_000;
const blockAt = (ms: number): number => Math.ceil(ms / 3000) - 500_000_000;
const timeOf = (block: number): number => (block + 500_000_000) * 3000;

/**
 * The endpoint's solidified head: the chain's (time, and never below a confirmed transfer it knows:
 * a real node cannot list a confirmed transfer above its solidified head), less what it trails by.
 */
function headOf(fake: FakeTronGrid, frozen: number | undefined): number {
  let chain = frozen ?? solidifiedBlock();
  if (frozen === undefined) for (const t of fake.transfers) if (t.confirmed && t.indexed) chain = Math.max(chain, blockAt(t.block_timestamp));
  return chain - fake.behindBlocks;
}

/**
 * java-tron's GetNowBlock answer, abridged (developers.tron.network/reference/getnowblock-1):
 * `{ blockID, block_header: { raw_data: { number, txTrieRoot, witness_address, parentHash, version, timestamp }, witness_signature } }`;
 * the block's transactions are left out (an empty block).
 */
function nowBlock(number: number) {
  const id = number.toString(16).padStart(16, '0');
  return {
    blockID: id + '0'.repeat(48),
    block_header: {
      raw_data: { number, txTrieRoot: '0'.repeat(64), witness_address: '41' + '0'.repeat(40), parentHash: (number - 1).toString(16).padStart(16, '0') + '0'.repeat(48), version: 31, timestamp: (number + 500_000_000) * 3000 },
      witness_signature: '0'.repeat(130),
    },
  };
}

const ROUTE = /^\/v1\/accounts\/([^/]+)\/transactions\/trc20$/;

function handle(fake: FakeTronGrid, req: IncomingMessage, res: ServerResponse, hanging: Set<ServerResponse>): void {
  const url = new URL(req.url ?? '/', fake.url);
  const apiKey = req.headers['tron-pro-api-key'];
  fake.requests.push({ url, at: Date.now(), apiKey: typeof apiKey === 'string' ? apiKey : undefined });

  if (serveFault(fake, res, hanging)) return;
  handleListing(fake, req, res, url, apiKey);
}

/** The next fault, if one is queued: answered (or left hanging); true when it was. */
function serveFault(fake: FakeTronGrid, res: ServerResponse, hanging: Set<ServerResponse>): boolean {
  const fault = fake.faults[0];
  if (fault) {
    fault.times -= 1;
    if (fault.times <= 0) fake.faults.shift();
    if ('hang' in fault) {
      hanging.add(res);
      res.on('close', () => hanging.delete(res));
      return true;
    }
    // Headers as measured: Server: openresty, CORS only; no Retry-After, no X-RateLimit-*.
    const body = fault.body ?? faultBody(fault.status);
    res.writeHead(fault.status, { 'content-type': typeof body === 'string' ? 'text/plain' : 'application/json', server: 'openresty', 'access-control-allow-origin': '*' });
    res.end(typeof body === 'string' ? body : JSON.stringify(body));
    return true;
  }
  return false;
}

function handleListing(fake: FakeTronGrid, req: IncomingMessage, res: ServerResponse, url: URL, apiKey: string | string[] | undefined): void {
  const route = ROUTE.exec(url.pathname);
  if (req.method !== 'GET' || !route) return send(res, 404, { success: false, error: 'not found', statusCode: 404 });
  if (fake.apiKey !== undefined && apiKey !== fake.apiKey) return send(res, 401, { Error: 'ApiKey not exists' });

  const q = url.searchParams;
  const flag = (name: string) => q.get(name) === 'true';
  if (flag('only_confirmed') && flag('only_unconfirmed')) return send(res, 400, { success: false, error: 'only_confirmed and only_unconfirmed cannot be combined', statusCode: 400 });
  const limit = Number(q.get('limit') ?? 20);
  if (!Number.isInteger(limit) || limit < 1 || limit > 200) return send(res, 400, { success: false, error: 'limit must be between 1 and 200', statusCode: 400 });

  const account = base58(decodeURIComponent(route[1]));
  const contract = q.has('contract_address') ? base58(q.get('contract_address')!) : undefined;
  const minTs = Number(q.get('min_timestamp') ?? q.get('min_block_timestamp') ?? 0);
  const maxTs = Number(q.get('max_timestamp') ?? q.get('max_block_timestamp') ?? Number.MAX_SAFE_INTEGER);
  const asc = (q.get('order_by') ?? 'block_timestamp,desc') === 'block_timestamp,asc';

  const matching = fake.transfers
    .filter((t) => t.indexed)
    .filter((t) => t.from === account || t.to === account)
    .filter((t) => !flag('only_to') || t.to === account)
    .filter((t) => !flag('only_from') || t.from === account)
    .filter((t) => !flag('only_confirmed') || t.confirmed)
    .filter((t) => !flag('only_unconfirmed') || !t.confirmed)
    .filter((t) => contract === undefined || t.token.address === contract)
    .filter((t) => t.block_timestamp >= minTs && t.block_timestamp <= maxTs)
    // A trailing endpoint has not seen blocks past its head yet.
    .filter((t) => fake.behindBlocks === 0 || t.block_timestamp <= timeOf(headOf(fake, undefined)))
    .sort((a, b) => a.block_timestamp - b.block_timestamp || a.transaction_id.localeCompare(b.transaction_id));
  if (!asc) matching.reverse();

  // Real fingerprints are opaque; this one encodes the offset into the filtered list.
  const fp = q.get('fingerprint');
  const offset = fp ? Number(Buffer.from(fp, 'base64url').toString()) : 0;
  if (!Number.isInteger(offset) || offset < 0) return send(res, 400, { success: false, error: 'bad fingerprint', statusCode: 400 });
  const page = matching.slice(offset, offset + limit);
  const meta: Record<string, unknown> = { at: Date.now(), page_size: page.length };
  if (offset + limit < matching.length) {
    const fingerprint = Buffer.from(String(offset + limit)).toString('base64url');
    const next = new URL(url);
    next.searchParams.set('fingerprint', fingerprint);
    meta.fingerprint = fingerprint;
    meta.links = { next: next.toString() };
  }
  for (const t of page) fake.served.set(t.transaction_id, (fake.served.get(t.transaction_id) ?? 0) + 1);
  send(res, 200, { data: page.map(toItem), success: true, meta });
}

function toItem(t: FakeTransfer) {
  return {
    transaction_id: t.transaction_id,
    token_info: { symbol: t.token.symbol, address: t.token.address, decimals: t.token.decimals, name: t.token.name },
    block_timestamp: t.block_timestamp,
    from: t.from,
    to: t.to,
    type: t.type,
    value: t.value,
  };
}

/** TronGrid accepts base58 or 41-hex addresses. */
function base58(a: string): string {
  const hex = /^(?:0x)?(41[0-9a-fA-F]{40})$/.exec(a);
  return hex ? TronWeb.address.fromHex(hex[1]) : a;
}

function send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = { 'content-type': 'application/json' }): void {
  res.writeHead(status, headers);
  res.end(JSON.stringify(body));
}
