import { sql } from 'kysely';
import { audit } from '../../db/audit.ts';
import { writeTx, type Db } from '../../db/open.ts';
import type { PaymentLinksTable } from '../../db/schema.ts';
import { base58Encode } from '../../domain/base58.ts';
import { PaydError } from '../../domain/errors.ts';
import { UUID_V4 } from '../../domain/ids.ts';
import type { Method } from '../../domain/methods.ts';
import type { Clock, Random } from '../../domain/ports.ts';
import type { Fiat } from '../../domain/rates.ts';
import type { IntentService } from '../intents/index.ts';
import type { Actor, Merchant, MerchantService } from '../merchants/index.ts';
import { checkFiat, checkTitle, enteredAmount, fiatAmount, type LinkInput } from './checks.ts';
import { linkView, type Link, type LinkState } from './view.ts';

export type { LinkInput } from './checks.ts';
export type { Link, LinkState, LinkView } from './view.ts';

export interface LinkServiceDeps {
  db: Db;
  clock: Clock;
  random: Random;
  intents: Pick<IntentService, 'create' | 'methodOptions'>;
  merchants: Pick<MerchantService, 'get' | 'list'>;
  /** The methods enabled here, in the order the page offers them. */
  enabledMethods: () => readonly Method[];
  /** Base of the links' public URLs (server.publicUrl), without trailing slash. */
  publicUrl: string;
  /**
   * Unpaid intents one link may have open at once: a link is public, so however many people (or
   * scripts) open it and choose, it can hold only this many of the unique amounts.
   */
  maxOpenIntents: number;
}

const linkFromRow = (r: PaymentLinksTable): Link => ({
  id: r.id,
  slug: r.slug,
  merchantId: r.merchant_id,
  title: r.title,
  currency: r.price_currency as Fiat,
  priceAmount: r.price_amount,
  minAmount: r.min_amount,
  maxAmount: r.max_amount,
  methods: r.methods_json === null ? null : (JSON.parse(r.methods_json) as Method[]),
  singleUse: Number(r.single_use) === 1,
  expiresAt: r.expires_at === null ? null : Number(r.expires_at),
  active: Number(r.active) === 1,
  createdAt: Number(r.created_at),
});

const notFound = (ref: string) => new PaydError('NOT_FOUND', `no payment link ${JSON.stringify(ref)}`);

/** What the page says instead of a price when the link takes nothing now. */
export const CLOSED_TEXT: Record<Exclude<LinkState, 'active'>, string> = {
  inactive: 'This payment link has been turned off by the shop.',
  expired: 'This payment link has expired.',
  used: 'This payment link has already been paid.',
};

/**
 * Payment links: a merchant's page with a title and a price (or an amount the customer enters) that
 * creates an intent only when a customer chooses how to pay, so an opened link costs nothing. Every
 * surface (API, CLI, console, bot, the public page) is one call here.
 */
export function createLinkService(deps: LinkServiceDeps) {
  const { db, clock } = deps;
  /** Choices being created on this node, per link. */
  const inFlight = new Map<string, number>();

  async function rowOf(ref: string, merchantId?: string): Promise<PaymentLinksTable> {
    let q = db.selectFrom('payment_links').selectAll();
    q = UUID_V4.test(ref) ? q.where('id', '=', ref.toLowerCase()) : q.where('slug', '=', ref);
    if (merchantId !== undefined) q = q.where('merchant_id', '=', merchantId);
    const row = await q.executeTakeFirst();
    if (!row) throw notFound(ref);
    return row;
  }

  async function paidCounts(ids: readonly string[]): Promise<Map<string, number>> {
    if (ids.length === 0) return new Map();
    const rows = await db
      .selectFrom('intents')
      .select(['link_id', sql<string>`count(*)`.as('n')])
      .where('link_id', 'in', ids)
      .where('status', '=', 'settled')
      .groupBy('link_id')
      .execute();
    return new Map(rows.map((r) => [r.link_id!, Number(r.n)]));
  }

  function stateOf(link: Link, paid: number): LinkState {
    if (!link.active) return 'inactive';
    if (link.expiresAt !== null && clock.now() >= link.expiresAt) return 'expired';
    if (link.singleUse && paid > 0) return 'used';
    return 'active';
  }

  const viewOf = (link: Link, paid: number) => linkView(link, stateOf(link, paid), paid, deps.publicUrl);

  function checkMethods(methods: readonly string[] | undefined): Method[] | null {
    if (methods === undefined) return null;
    const enabled = deps.enabledMethods();
    if (methods.length === 0) throw new PaydError('INVALID_REQUEST', 'methods: name at least one method, or leave it out for every enabled one', { errors: [{ field: 'methods', message: 'must not be empty' }] });
    for (const m of methods) {
      if (!enabled.includes(m)) throw new PaydError('METHOD_UNSUPPORTED', `method ${JSON.stringify(m)} is not enabled here; use one of: ${enabled.join(', ') || '(none enabled)'}`);
    }
    return [...new Set(methods)];
  }

  async function setActive(ref: string, active: boolean, by: { merchantId?: string; actor: Actor | `telegram:${string}` }) {
    const row = await rowOf(ref, by.merchantId);
    await writeTx(db, async (tx) => {
      await tx.updateTable('payment_links').set({ active: active ? 1 : 0, updated_at: clock.now() }).where('id', '=', row.id).execute();
      await audit(tx, { at: clock.now(), actor: by.actor, action: active ? 'link.activate' : 'link.deactivate', subject: row.id, details: null });
    });
    return get(row.id, by.merchantId);
  }

  async function get(ref: string, merchantId?: string) {
    const link = linkFromRow(await rowOf(ref, merchantId));
    return viewOf(link, (await paidCounts([link.id])).get(link.id) ?? 0);
  }

  return {
    async create(merchantId: string, input: LinkInput, actor: Actor | `telegram:${string}`) {
      const merchant = await deps.merchants.get(merchantId);
      if (merchant.status !== 'active') throw new PaydError('FORBIDDEN', `merchant ${merchantId} is revoked`);
      const title = checkTitle(input.title);
      if ((input.price === undefined) === (input.customerAmount === undefined)) {
        throw new PaydError('INVALID_REQUEST', 'give either a fixed price or a customer-entered amount (min and max), not both', { errors: [{ field: 'price', message: 'exactly one of price and customer_amount' }] });
      }
      let amounts: Pick<PaymentLinksTable, 'price_amount' | 'price_currency' | 'min_amount' | 'max_amount'>;
      if (input.price) {
        const currency = checkFiat('price.currency', input.price.currency);
        amounts = { price_amount: fiatAmount('price.amount', input.price.amount, currency).text, price_currency: currency, min_amount: null, max_amount: null };
      } else {
        const c = input.customerAmount!;
        const currency = checkFiat('customer_amount.currency', c.currency);
        const min = fiatAmount('customer_amount.min', c.min, currency);
        const max = fiatAmount('customer_amount.max', c.max, currency);
        if (min.minor > max.minor) throw new PaydError('INVALID_REQUEST', 'customer_amount.min must not be above customer_amount.max', { errors: [{ field: 'customer_amount.min', message: 'must not be above max' }] });
        amounts = { price_amount: null, price_currency: currency, min_amount: min.text, max_amount: max.text };
      }
      const methods = checkMethods(input.methods);
      const now = clock.now();
      if (input.expiresAt !== undefined && (!Number.isSafeInteger(input.expiresAt) || input.expiresAt <= now)) {
        throw new PaydError('INVALID_REQUEST', 'expires_at must be in the future', { errors: [{ field: 'expires_at', message: 'must be in the future' }] });
      }
      const row: PaymentLinksTable = {
        id: deps.random.uuid(),
        // 64 random bits: short enough to type from a printout, far too many to guess.
        slug: base58Encode(deps.random.bytes(8)),
        merchant_id: merchant.clientId,
        title,
        ...amounts,
        methods_json: methods ? JSON.stringify(methods) : null,
        single_use: input.singleUse ? 1 : 0,
        expires_at: input.expiresAt ?? null,
        active: 1,
        orders: 0,
        created_at: now,
        updated_at: now,
      };
      await writeTx(db, async (tx) => {
        await tx.insertInto('payment_links').values(row).execute();
        await audit(tx, { at: now, actor, action: 'link.create', subject: row.id, details: { title } });
      });
      return viewOf(linkFromRow(row), 0);
    },

    /**
     * The merchant a link made without naming one belongs to (the CLI without --merchant, the bot):
     * the only active merchant, as on a shop's own payd; with none or several, the caller must name one.
     */
    async soleMerchant(): Promise<string> {
      const active = (await deps.merchants.list()).filter((x) => x.status === 'active');
      if (active.length === 1) return active[0]!.clientId;
      throw new PaydError('CONFLICT', active.length === 0 ? 'there is no active merchant: create one first (payd merchant create)' : `there are ${active.length} active merchants: name the one the link is for (--merchant <client_id>)`);
    },

    /** Newest first; `merchantId` absent: every merchant's (the CLI, the console). */
    async list(filter: { merchantId?: string; limit?: number } = {}) {
      let q = db.selectFrom('payment_links').selectAll();
      if (filter.merchantId !== undefined) q = q.where('merchant_id', '=', filter.merchantId);
      const rows = await q.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(Math.min(filter.limit ?? 50, 500)).execute();
      const links = rows.map(linkFromRow);
      const paid = await paidCounts(links.map((l) => l.id));
      return links.map((l) => viewOf(l, paid.get(l.id) ?? 0));
    },

    /** By id or slug; `merchantId` given: only that merchant's (another's is NOT_FOUND). */
    get,
    deactivate: (ref: string, by: { merchantId?: string; actor: Actor | `telegram:${string}` }) => setActive(ref, false, by),
    activate: (ref: string, by: { merchantId?: string; actor: Actor | `telegram:${string}` }) => setActive(ref, true, by),

    /** The public page's view of a link: undefined for a slug that names none. */
    async page(slug: string): Promise<{ link: Link; state: LinkState; methods: readonly Method[] } | undefined> {
      const row = await db.selectFrom('payment_links').selectAll().where('slug', '=', slug).executeTakeFirst();
      if (!row) return undefined;
      const link = linkFromRow(row);
      const enabled = deps.enabledMethods();
      const methods = link.methods ? link.methods.filter((m) => enabled.includes(m)) : enabled;
      return { link, state: stateOf(link, (await paidCounts([link.id])).get(link.id) ?? 0), methods };
    },

    /**
     * What the customer may choose for this link's price (or the amount they entered, checked
     * against the link's bounds): each offered method that can price it now, with what it would cost.
     * Nothing is reserved or written.
     */
    async options(link: Link, methods: readonly Method[], entered?: string) {
      const amount = link.priceAmount ?? enteredAmount(entered ?? '', { min: link.minAmount!, max: link.maxAmount!, currency: link.currency });
      const price = { amount, currency: link.currency };
      return { price, options: await deps.intents.methodOptions({ amount: Number(amount), currency: link.currency }, methods) };
    },

    /**
     * A customer chose `method` (and typed `amount` on a customer-entered link): the intent is
     * created now, priced in the link's fiat, with an order_id numbered by the link. A link that
     * takes nothing now, a method it does not offer, an amount outside its bounds, or a link
     * already holding `maxOpenIntents` unpaid intents is refused and creates nothing.
     */
    async choose(slug: string, choice: { method: string; amount?: string }) {
      const shown = await this.page(slug);
      if (!shown) throw notFound(slug);
      const { link, state, methods } = shown;
      if (state !== 'active') throw new PaydError('CONFLICT', CLOSED_TEXT[state]);
      if (!methods.includes(choice.method)) throw new PaydError('METHOD_UNSUPPORTED', `this link does not take ${JSON.stringify(choice.method)}; choose one of: ${methods.join(', ')}`);
      const amount = link.priceAmount ?? enteredAmount(choice.amount ?? '', { min: link.minAmount!, max: link.maxAmount!, currency: link.currency });
      // Choices in flight are read before the count: one that finishes meanwhile committed before
      // the count began, so it is seen in one of them (twice at most: a refusal, never an excess).
      const started = (inFlight.get(link.id) ?? 0) + 1;
      inFlight.set(link.id, started);
      try {
        const open = await db
          .selectFrom('intents')
          .select(sql<string>`count(*)`.as('n'))
          .where('link_id', '=', link.id)
          .where('status', '=', 'pending')
          .where('expires_at', '>', clock.now())
          .executeTakeFirstOrThrow();
        if (Number(open.n) + started > deps.maxOpenIntents) {
          throw new PaydError('RATE_LIMITED', 'this link has many unpaid payments open right now; try again in a few minutes', { retryAfter: 60 });
        }
        const numbered = await writeTx(db, (tx) => tx.updateTable('payment_links').set((eb) => ({ orders: eb('orders', '+', 1) })).where('id', '=', link.id).returning('orders').executeTakeFirstOrThrow());
        const merchant: Merchant = await deps.merchants.get(link.merchantId);
        return await deps.intents.create(merchant, { price: { amount, currency: link.currency }, currency: choice.method, order_id: `${link.slug}-${numbered.orders}` }, { linkId: link.id });
      } finally {
        const left = inFlight.get(link.id)! - 1;
        if (left === 0) inFlight.delete(link.id);
        else inFlight.set(link.id, left);
      }
    },
  };
}

export type LinkService = ReturnType<typeof createLinkService>;
