/**
 * A local Solana JSON-RPC 2.0 server on 127.0.0.1 for tests, answering the methods the
 * source uses with the documented shapes:
 * - getSignaturesForAddress (https://solana.com/docs/rpc/http/getsignaturesforaddress):
 *   [{ signature, slot, err, memo, blockTime, confirmationStatus }], newest first,
 *   honouring limit / before / until / commitment.
 * - getTransaction (https://solana.com/docs/rpc/http/gettransaction), jsonParsed:
 *   { slot, blockTime, meta, transaction, version }, or null when the transaction has
 *   not reached the requested commitment. A transaction whose version exceeds the
 *   request's maxSupportedTransactionVersion (absent = legacy only) is error -32015
 *   with the message mainnet sends (ankr.com/docs/changelog/solana-transaction-v1-2026-09-15,
 *   test/fixtures/chains/REAL-UPSTREAMS.md §3i): since 2026-09-15 that is every v1 transaction asked at 0.
 * - getAccountInfo (https://solana.com/docs/rpc/http/getaccountinfo), base64:
 *   { context: { slot }, value: { data: [b64, "base64"], executable, lamports, owner, rentEpoch, space } | null },
 *   for the mints registered with `mint()` (owner = the token program).
 * - getVersion, getSlot.
 * Each transaction carries its own commitment so a test can promote it later.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { PYUSD_MINT, TOKEN_2022_PROGRAM, TOKEN_PROGRAM, USDC_MINT, USDT_MINT, type BuiltTx } from './solana-tx.ts';

type Status = 'confirmed' | 'finalized';
interface Landed {
  tx: BuiltTx;
  slot: number;
  status: Status;
  seq: number;
  /** Served by this endpoint alone (addOwn): listed and returned whatever its head says. */
  own?: boolean;
}
interface Fault {
  status?: number;
  delayMs?: number;
}

const visible = (s: Status, commitment: string | undefined) => s === 'finalized' || commitment === 'confirmed' || commitment === 'processed';

export class FakeSolanaRpc {
  readonly url: string;
  /** Every request received, in order (also the ones answered with a fault). */
  readonly requests: { method: string; params: unknown[] }[] = [];
  #server: Server;
  #txs: Landed[] = [];
  /** What this endpoint alone serves (a lying or forked provider); a replica never shares it. */
  #own: Landed[] = [];
  #slot = 1000;
  /** Slots pass every 400 ms, with or without transactions (Solana's slot time). */
  #startedAt = Date.now();
  /** The slot getSlot reports while the node is stuck (freezeSlot). */
  #frozen: number | undefined;
  #faults: Fault[] = [];
  #lagging = new Set<string>();
  /** Signatures this endpoint leaves out of getSignaturesForAddress (an indexer that withholds, or lost, them). */
  #withheld = new Set<string>();
  #mints = new Map<string, string>();
  #overrides = new Map<string, (result: Record<string, unknown>) => unknown>();
  /** A second provider over the same chain (replica()): its transactions and slots are the primary's. */
  #primary: FakeSolanaRpc | undefined;
  /**
   * Slots this endpoint trails the chain by (a lagging provider): getSlot answers that much less,
   * and transactions in later slots are neither listed nor returned yet.
   */
  behindSlots = 0;

  constructor(server: Server, primary?: FakeSolanaRpc) {
    this.#server = server;
    this.#primary = primary;
    if (primary) {
      this.#txs = primary.#txs;
      this.#mints = primary.#mints;
      this.#overrides = primary.#overrides;
    }
    // The mainnet mints the tests use, with their real owner programs.
    this.mint(USDT_MINT, TOKEN_PROGRAM);
    this.mint(USDC_MINT, TOKEN_PROGRAM);
    this.mint(PYUSD_MINT, TOKEN_2022_PROGRAM);
    this.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }

  /** The newest slot: the last one a transaction landed in, or the one the time has reached. */
  #current(): number {
    if (this.#primary) return this.#primary.#current();
    return Math.max(this.#slot, 1000 + Math.floor((Date.now() - this.#startedAt) / 400));
  }

  /** The newest slot this endpoint shows. */
  #head(): number {
    return (this.#frozen ?? this.#current()) - this.behindSlots;
  }

  /** The node stops advancing (getSlot keeps answering the same slot) until resumeSlot(). */
  freezeSlot(): void {
    this.#frozen = this.#current();
  }

  resumeSlot(): void {
    this.#frozen = undefined;
  }

  /** Lands a transaction in a new slot, at `status`; returns its signature. */
  add(tx: BuiltTx, status: Status = 'finalized'): string {
    if (this.#primary) return this.#primary.add(tx, status);
    this.#slot = this.#current() + 1;
    this.#txs.push({ tx, slot: this.#slot, status, seq: this.#txs.length });
    return tx.signature;
  }

  /**
   * Lands `tx` on this endpoint only, at `slot` (default: the next one), as a lying provider
   * would serve it; the other endpoints over the same chain never list or return it.
   */
  addOwn(tx: BuiltTx, slot = this.#current() + 1, status: Status = 'finalized'): string {
    this.#own.push({ tx, slot, status, seq: -1, own: true });
    return tx.signature;
  }

  /**
   * Lands `n` failed transactions touching `address` (a dust-spam storm), cheaply: they
   * are listed (with `err`, as getSignaturesForAddress reports failures) but never fetched.
   */
  spam(address: string, n: number): void {
    for (let i = 0; i < n; i++) {
      const signature = `1111Spam${base58(this.#txs.length)}`;
      this.#slot = this.#current() + 1;
      this.#txs.push({ tx: failedTx(address, signature), slot: this.#slot, status: 'finalized', seq: this.#txs.length });
    }
  }

  /** Registers a mint account owned by `program` (classic Token or Token-2022), for getAccountInfo. */
  mint(address: string, program: string): void {
    this.#mints.set(address, program);
  }

  /** Serves `patch(result)` instead of the result for `signature` (a shape the client cannot decode). */
  override(signature: string, patch: (result: Record<string, unknown>) => unknown): void {
    this.#overrides.set(signature, patch);
  }

  finalize(signature: string): void {
    const t = this.#txs.find((x) => x.tx.signature === signature);
    if (!t) throw new Error(`unknown signature ${signature}`);
    t.status = 'finalized';
  }

  /** Models a load-balanced RPC whose getTransaction node lags: listed, but returned as null until `served`. */
  lag(signature: string): void {
    this.#lagging.add(signature);
  }

  served(signature: string): void {
    this.#lagging.delete(signature);
  }

  /**
   * This endpoint leaves `signature` out of every getSignaturesForAddress answer, as a provider
   * whose address index lacks it (or hides it) would; getTransaction still returns it by signature.
   */
  withhold(signature: string): void {
    this.#withheld.add(signature);
  }

  /** The next `n` requests get an HTTP `status` answer (default 429) and/or a delay. */
  failNext(n: number, fault: Fault = { status: 429 }): void {
    for (let i = 0; i < n; i++) this.#faults.push(fault);
  }

  clearFaults(): void {
    this.#faults.length = 0;
  }

  count(method?: string, since = 0): number {
    return this.requests.slice(since).filter((r) => method === undefined || r.method === method).length;
  }

  async close(): Promise<void> {
    this.#server.closeAllConnections();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }

  async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    let body = '';
    for await (const chunk of req) body += chunk;
    const call = JSON.parse(body) as { id: unknown; method: string; params?: unknown[] };
    this.requests.push({ method: call.method, params: call.params ?? [] });
    const fault = this.#faults.shift();
    if (fault?.delayMs) await new Promise((r) => setTimeout(r, fault.delayMs));
    if (fault?.status) {
      res.writeHead(fault.status, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ jsonrpc: '2.0', error: { code: fault.status, message: 'Too many requests for a specific RPC call' }, id: call.id }));
      return;
    }
    const answer = this.#dispatch(call.method, call.params ?? []);
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ jsonrpc: '2.0', ...answer, id: call.id }));
  }

  #dispatch(method: string, params: unknown[]): { result: unknown } | { error: { code: number; message: string } } {
    switch (method) {
      case 'getSignaturesForAddress':
        return { result: this.#signatures(params[0] as string, (params[1] ?? {}) as Record<string, unknown>) };
      case 'getTransaction':
        return this.#transaction(params[0] as string, (params[1] ?? {}) as Record<string, unknown>);
      case 'getAccountInfo': {
        const owner = this.#mints.get(params[0] as string);
        const value = owner
          ? { data: [Buffer.alloc(82).toString('base64'), 'base64'], executable: false, lamports: 1_461_600, owner, rentEpoch: 361, space: 82 }
          : null;
        return { result: { context: { apiVersion: '2.2.14', slot: this.#current() }, value } };
      }
      case 'getVersion':
        return { result: { 'solana-core': '2.2.14', 'feature-set': 3294202862 } };
      case 'getSlot':
        return { result: this.#head() };
      default:
        return { error: { code: -32601, message: 'Method not found' } };
    }
  }

  #signatures(address: string, o: Record<string, unknown>) {
    const commitment = o.commitment as string | undefined;
    const limit = Math.min(1000, (o.limit as number | undefined) ?? 1000);
    // Landed in slot order, so walking backwards is newest first.
    const out: Landed[] = [];
    let started = !o.before;
    const txs = this.#own.length === 0 ? this.#txs : [...this.#txs, ...this.#own].sort((x, y) => x.slot - y.slot);
    for (let i = txs.length - 1; i >= 0 && out.length < limit; i--) {
      const t = txs[i];
      if (!started) {
        started = t.tx.signature === o.before;
        continue;
      }
      if (t.tx.signature === o.until) break;
      if (t.slot > this.#head() && !t.own) continue; // not on this endpoint yet
      if (this.#withheld.has(t.tx.signature)) continue;
      if (visible(t.status, commitment) && t.tx.transaction.message.accountKeys.some((k) => k.pubkey === address)) out.push(t);
    }
    return out.map((t) => ({
      signature: t.tx.signature,
      slot: t.slot,
      err: t.tx.meta.err,
      memo: null,
      blockTime: t.tx.blockTime,
      confirmationStatus: t.status,
    }));
  }

  #transaction(signature: string, o: Record<string, unknown>) {
    if (o.encoding !== 'jsonParsed') return { error: { code: -32602, message: 'this fake serves encoding jsonParsed only' } };
    // A lying endpoint answers with its own version of a signature the chain knows otherwise.
    const t = this.#own.find((x) => x.tx.signature === signature) ?? this.#txs.find((x) => x.tx.signature === signature);
    if (!t || (t.slot > this.#head() && !t.own) || this.#lagging.has(signature) || !visible(t.status, o.commitment as string | undefined)) return { result: null };
    const max = o.maxSupportedTransactionVersion as number | undefined;
    if (t.tx.version !== 'legacy' && (max === undefined || t.tx.version > max)) {
      return {
        error: {
          code: -32015,
          message: `Transaction version (${t.tx.version}) is not supported by the requesting client. Please try the request again with the following configuration parameter: "maxSupportedTransactionVersion": ${t.tx.version}`,
        },
      };
    }
    const { signature: _sig, ...rest } = t.tx;
    const result = { slot: t.slot, ...rest };
    const patch = this.#overrides.get(signature);
    return { result: patch ? patch(result) : result };
  }
}

/**
 * A transaction that failed on chain and touched `address` (listed with `err`, as
 * getSignaturesForAddress reports failures; REAL-UPSTREAMS.md §3e): what `spam` lands, one at a time.
 */
export function failedTx(address: string, signature: string, blockTime = Math.floor(Date.now() / 1000)): BuiltTx {
  const meta = { err: { InstructionError: [0, { Custom: 1 }] }, preBalances: [], postBalances: [], preTokenBalances: [], postTokenBalances: [] };
  const message = { accountKeys: [{ pubkey: address, signer: false, writable: true, source: 'transaction' as const }], instructions: [] };
  return { signature, blockTime, meta, transaction: { signatures: [signature], message }, version: 'legacy' };
}

/** A fake RPC; with `primary`, another provider over the same chain (same transactions and slots, its own faults and lag). */
export async function startFakeSolanaRpc(primary?: FakeSolanaRpc): Promise<FakeSolanaRpc> {
  let fake: FakeSolanaRpc | undefined;
  const server = createServer((req, res) => {
    fake!.handle(req, res).catch((err) => {
      res.writeHead(500);
      res.end(String(err));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  fake = new FakeSolanaRpc(server, primary);
  return fake;
}

const B58 = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';
function base58(n: number): string {
  let s = '';
  do {
    s = B58[n % 58] + s;
    n = Math.floor(n / 58);
  } while (n > 0);
  return s;
}
