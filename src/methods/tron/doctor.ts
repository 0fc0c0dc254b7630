/** `payd doctor` for one TronGrid-compatible endpoint: reachable, its key, its head, its quota, what went wrong. */
import type { Clock } from '../../domain/ports.ts';
import { describeError } from '../../domain/errors.ts';
import type { DoctorResult } from '../source.ts';
import type { Member } from '../upstream-health.ts';
import { TronGridError } from './client.ts';
import type { TronEndpoint } from './tuning.ts';
import { parseTrc20Page, Trc20FormatError } from './trc20-page.ts';

export async function checkTronEndpoint(member: Member<TronEndpoint>, options: { address: string; contract: string; decimals: number; signal: AbortSignal; clock: Clock }): Promise<DoctorResult> {
  const where = member.label;
  const hasKey = member.spec.apiKey !== undefined;
  try {
    const started = options.clock.now();
    const body = await member.spec.client.listTrc20({ address: options.address, contract: options.contract, limit: 1 }, options.signal);
    const ms = Math.max(0, options.clock.now() - started);
    parseTrc20Page(body, { receiver: options.address, contract: options.contract, decimals: options.decimals });
    const key = hasKey ? 'API key accepted' : "no API key set (TronGrid's anonymous rate limit applies)";
    let head = '';
    try {
      head = `; solidified block ${(await member.spec.client.solidifiedHead(options.signal)).number}`;
    } catch (err) {
      head = `; solidified head unreadable (${describeError(err)})`;
    }
    const quota = member.health.quota !== undefined ? `; quota left: ${member.health.quota}` : '';
    return { ok: true, message: `TronGrid reachable at ${where} in ${ms} ms; ${key}${head}${quota}` };
  } catch (err) {
    if (err instanceof TronGridError && err.fault === 'rate_limited') {
      const said = err.said ? `: ${err.said}` : '';
      // A rate limit is not a key problem: TronGrid answered, and the key (if any) was not what it refused.
      const key = hasKey ? 'the API key was not rejected' : "no API key set; one raises TronGrid's anonymous limit of 1 request per second";
      return { ok: true, message: `TronGrid reachable at ${where}, but rate-limiting right now (HTTP ${err.status}${said}); ${key}` };
    }
    return { ok: false, message: failure(err, where, hasKey) };
  }
}

function failure(err: unknown, where: string, hasKey: boolean): string {
  if (err instanceof TronGridError && err.fault === 'key_rejected') {
    const said = err.said ? `: ${err.said}` : '';
    return hasKey
      ? `TronGrid at ${where} rejected the API key (HTTP ${err.status}${said}); check methods.USDT_TRC20.apiKey (or this endpoint's apiKey)`
      : `TronGrid at ${where} refused access without an API key (HTTP ${err.status}${said}); set methods.USDT_TRC20.apiKey (or this endpoint's apiKey)`;
  }
  if (err instanceof Trc20FormatError) return `${where} does not answer like TronGrid: ${err.message}`;
  return `TronGrid at ${where} is not usable: ${describeError(err)}`;
}
