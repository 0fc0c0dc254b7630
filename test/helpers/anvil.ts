/**
 * A real EVM node for the EVM family's tests: Foundry's anvil (the @foundry-rs/anvil npm package
 * ships the binary) on loopback with the chain's id and one-slot epochs, so `finalized` is the
 * newest block minus two and moves as soon as blocks are mined. A real ERC-20 compiled here with
 * solc, and transfers signed by viem with anvil's funded dev keys.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { createServer, type Server } from 'node:net';
import { createPublicClient, createWalletClient, defineChain, http, type Address, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';

const require = createRequire(import.meta.url);
const ANVIL_BIN = join(dirname(require.resolve('@foundry-rs/anvil-linux-amd64/package.json')), 'bin', 'anvil');

/** anvil's first dev account (its fixed test mnemonic) and another key, given gas money when it sends. */
export const PAYER_KEY: Hex = '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80';
export const OTHER_KEY: Hex = '0x59c6995e998f97a5a0044966f0945389dc9ac5c4f9908f3a8b08cb0e8e4ab3d7';
/** The merchant's receiving address (anvil's fourth dev account), as a wallet shows it (EIP-55). */
export const MERCHANT: Address = '0x90F79bf6EB2c4f870365E785982E1f101E93b906';

const TOKEN_SOURCE = `
// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;
contract TestToken {
  string public name; string public symbol; uint8 public decimals;
  mapping(address => uint256) public balanceOf;
  event Transfer(address indexed from, address indexed to, uint256 value);
  constructor(string memory n, string memory s, uint8 d, uint256 supply) {
    name = n; symbol = s; decimals = d; balanceOf[msg.sender] = supply;
    emit Transfer(address(0), msg.sender, supply);
  }
  function transfer(address to, uint256 value) external returns (bool) {
    require(balanceOf[msg.sender] >= value, "balance");
    balanceOf[msg.sender] -= value; balanceOf[to] += value;
    emit Transfer(msg.sender, to, value);
    return true;
  }
}`;

let compiled: { abi: any[]; bytecode: Hex } | undefined;
/** The token contract, compiled once per test process. */
export function tokenArtifact(): { abi: any[]; bytecode: Hex } {
  if (compiled) return compiled;
  const solc = require('solc');
  const input = { language: 'Solidity', sources: { 'TestToken.sol': { content: TOKEN_SOURCE } }, settings: { outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object'] } } } };
  const out = JSON.parse(solc.compile(JSON.stringify(input)));
  const errors = (out.errors ?? []).filter((e: { severity: string }) => e.severity === 'error');
  if (errors.length) throw new Error(errors.map((e: { formattedMessage: string }) => e.formattedMessage).join('\n'));
  const c = out.contracts['TestToken.sol'].TestToken;
  compiled = { abi: c.abi, bytecode: `0x${c.evm.bytecode.object}` };
  return compiled;
}

async function freePort(): Promise<number> {
  const s: Server = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as { port: number }).port;
  await new Promise((r) => s.close(r));
  return port;
}

export interface Anvil {
  url: string;
  chainId: number;
  rpc<T = any>(method: string, params?: unknown[]): Promise<T>;
  /** Deploys a token with these decimals; the payer holds its whole supply. */
  deployToken(symbol: string, decimals: number): Promise<Address>;
  /** A signed `transfer(to, value)` from `key` (default the payer); returns the hash once mined. */
  transfer(token: Address, to: Address, value: bigint, key?: Hex): Promise<{ hash: Hex; block: bigint; status: string }>;
  mine(blocks?: number): Promise<void>;
  blockNumber(): Promise<bigint>;
  stop(): Promise<void>;
}

export async function startAnvil(chainId: number): Promise<Anvil> {
  const port = await freePort();
  const child: ChildProcess = spawn(ANVIL_BIN, ['--host', '127.0.0.1', '--port', String(port), '--chain-id', String(chainId), '--slots-in-an-epoch', '1', '--silent'], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (d) => (stderr += d));
  const url = `http://127.0.0.1:${port}`;
  let id = 0;
  const rpc = async <T>(method: string, params: unknown[] = []): Promise<T> => {
    const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: ++id, method, params }) });
    const body = (await res.json()) as { result?: T; error?: { message: string } };
    if (body.error) throw new Error(`${method}: ${body.error.message}`);
    return body.result as T;
  };
  const deadline = Date.now() + 20_000;
  for (;;) {
    try {
      await rpc('eth_chainId');
      break;
    } catch (err) {
      if (Date.now() > deadline || child.exitCode !== null) throw new Error(`anvil did not start: ${stderr || String(err)}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }
  const chain = defineChain({ id: chainId, name: `test-${chainId}`, nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 }, rpcUrls: { default: { http: [url] } } });
  const pub = createPublicClient({ chain, transport: http(url) });
  const wallet = (key: Hex) => createWalletClient({ chain, transport: http(url), account: privateKeyToAccount(key) });
  const { abi, bytecode } = tokenArtifact();

  return {
    url,
    chainId,
    rpc,
    async deployToken(symbol, decimals) {
      const hash = await wallet(PAYER_KEY).deployContract({ abi, bytecode, args: [symbol, symbol, decimals, 10n ** BigInt(decimals + 9)] });
      const r = await pub.waitForTransactionReceipt({ hash, pollingInterval: 20 });
      return r.contractAddress!;
    },
    async transfer(token, to, value, key = PAYER_KEY) {
      const from = privateKeyToAccount(key).address;
      if (key !== PAYER_KEY) await rpc('anvil_setBalance', [from, '0xde0b6b3a7640000']); // 1 ETH for gas
      // A fixed gas limit: a transfer that reverts is still sent and mined (status 0x0), not refused by estimation.
      const hash = await wallet(key).writeContract({ address: token, abi, functionName: 'transfer', args: [to, value], gas: 100_000n });
      const r = await pub.waitForTransactionReceipt({ hash, pollingInterval: 20 });
      return { hash, block: r.blockNumber, status: r.status === 'success' ? '0x1' : '0x0' };
    },
    async mine(blocks = 1) {
      await rpc('anvil_mine', [`0x${blocks.toString(16)}`]);
    },
    blockNumber: async () => BigInt(await rpc<string>('eth_blockNumber')),
    async stop() {
      // Killed by a signal, a process has no exit code: a second stop must not wait for an exit that already happened.
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGKILL');
      await exited;
    },
  };
}
