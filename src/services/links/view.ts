import { isoOrNull, isoUtc } from '../../domain/iso-time.ts';
import { DecimalNumber } from '../../domain/json.ts';
import type { Method } from '../../domain/methods.ts';
import type { Fiat } from '../../domain/rates.ts';

/** A payment link as the core sees it: amounts as decimal text in `currency` (a fiat), times as epoch ms. */
export interface Link {
  id: string;
  slug: string;
  merchantId: string;
  title: string;
  currency: Fiat;
  /** A fixed price; null: the customer enters the amount between minAmount and maxAmount. */
  priceAmount: string | null;
  minAmount: string | null;
  maxAmount: string | null;
  /** The methods offered; null: every enabled one. */
  methods: Method[] | null;
  singleUse: boolean;
  expiresAt: number | null;
  active: boolean;
  createdAt: number;
}

/** active: takes payments; inactive: turned off; expired: past expires_at; used: a single-use link that was paid. */
export type LinkState = 'active' | 'inactive' | 'expired' | 'used';

export const linkUrl = (publicUrl: string, slug: string) => `${publicUrl}/l/${slug}`;

/** The link as the API, the CLI and the console show it. */
export function linkView(link: Link, state: LinkState, paid: number, publicUrl: string) {
  const url = linkUrl(publicUrl, link.slug);
  return {
    link_id: link.id,
    url,
    title: link.title,
    price: link.priceAmount === null ? null : { amount: new DecimalNumber(link.priceAmount), currency: link.currency },
    customer_amount: link.priceAmount === null ? { min: new DecimalNumber(link.minAmount!), max: new DecimalNumber(link.maxAmount!), currency: link.currency } : null,
    methods: link.methods,
    single_use: link.singleUse,
    expires_at: isoOrNull(link.expiresAt),
    status: state,
    payments: paid,
    qr_png_url: `${url}/qr.png`,
    qr_svg_url: `${url}/qr.svg`,
    created_at: isoUtc(link.createdAt),
  };
}

export type LinkView = ReturnType<typeof linkView>;
