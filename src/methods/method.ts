import type * as v from 'valibot';
import type { MethodRules, TxRefRules } from '../domain/methods.ts';
import type { Db } from '../db/open.ts';
import type { Clock, MailboxTokenStore, Random } from '../domain/ports.ts';
import type { PaymentSource, SourceDeps } from './source.ts';

/**
 * A payment method, described in its own folder (methods/<family>/method.ts) and listed once in
 * methods/registry.ts: every layer asks the registry instead of switching on method names.
 * A descriptor is light: it imports no upstream library (tronweb, @solana/web3.js, imapflow,
 * mailparser, mailauth), only `loadSource` does, lazily, when the method is enabled.
 */
export interface MethodDescriptor<Section = any> {
  /** The currency code merchants send and see ("UPI", "SOL"). */
  readonly id: string;
  /** The folder it lives in (upi, tron, solana). */
  readonly family: string;
  readonly rules: MethodRules;
  readonly txRef: TxRefRules;
  /** Its `methods.<id>` config section (valibot); its output is what `receiver` and `loadSource` read. */
  readonly config: v.GenericSchema;
  /** The receiving address in a configured section (VPA, TRON address, Solana wallet). */
  receiver(section: Section): string;
  /** The token a wallet is asked for (TRC20 contract, SPL mint), its default when unconfigured. */
  token?(section: Section | undefined): string;
  /**
   * Fiat pricing beyond `rules.unit` (the asset a price converts into): `peg`, the fiat a
   * stablecoin is worth one of ("USD"), quoted 1:1 without asking a source unless the
   * operator turns that peg off (`pricing.pegs`).
   */
  readonly pricing?: { peg?: string };
  /** The payee name this method's section configures for payment links (UPI's `payeeName`). */
  payeeName?(section: Section): string;
  /**
   * Methods whose intents each get a fresh reference the payer's transfer carries (Solana Pay's
   * reference key): makes one from `random` (never reused); absent: the method has no reference.
   */
  newReference?(random: Random): string;
  /** The QR-able URI a customer's wallet opens for an intent. */
  paymentUri(d: DepositInput): string;
  /**
   * Methods whose payments accumulate on a reference (Solana Pay): the intent's payment URI asking
   * for `dueMinor` instead, same reference, for the rest after a part arrived (checkout page).
   */
  remainderUri?(paymentUri: string, dueMinor: bigint): string;
  readonly checkout: CheckoutText;
  readonly sandbox: {
    /** A fixed, well-formed receiving address no one holds the keys of. */
    receiver: string;
    /** A realistic-looking reference for a simulated transfer, from 64 random bytes. */
    txRef(bytes: Uint8Array): string;
  };
  /** An intent of this method as the API document's examples show it (the first method with one is shown). */
  readonly openapi?: { example: OpenApiExample };
  /** `payd init`: asks for its section (undefined: not accepted). Asked in ascending `order`. */
  readonly init?: { order: number; ask(w: InitWizard): Promise<Record<string, unknown> | undefined> };
  /**
   * For an upstream that can go quiet without an error (a mailbox that stops receiving bank
   * alerts looks exactly like a shop with no sales): a watch over what the ledger records, built
   * once per process from the configured section (null: nothing to watch). /readyz, the alarms,
   * `payd doctor`, the console and /metrics read it by the method's id.
   */
  silence?(section: Section, deps: { db: Db; clock: Clock }): MethodSilence | null;
  /** A method read from a mailbox that may sign in with OAuth 2.0: what `payd mailbox authorize` asks of it. */
  readonly mailbox?: MailboxAuthorizer<Section>;
  /** Lines `payd serve` logs as warnings at start: a setting that weakens what the method trusts. */
  warnings?(section: Section): string[];
  /** Builds its live source; the heavy upstream libraries load here, never with the descriptor. */
  loadSource(section: Section, deps: MethodSourceDeps): Promise<PaymentSource>;
}

/** `payd mailbox authorize` through a method's descriptor (UPI's alert mailbox). */
export interface MailboxAuthorizer<Section = any> {
  /** Where its section keeps the mailbox settings, as the operator writes it ("methods.UPI.imap"). */
  readonly imapPath: string;
  /** The OAuth client its configured section names (secrets read), for flags left out. */
  client(section: Section): { clientId?: string; clientSecret?: string };
  /** Signs the operator in with the provider and returns the refresh token; the flows and their HTTP client load here. */
  authorize(o: MailboxAuthorizeOptions): Promise<{ refreshToken: string; scope: string | undefined }>;
}

export interface MailboxAuthorizeOptions {
  provider: 'google' | 'microsoft';
  tokenUrl: string;
  clientId: string;
  clientSecret?: string;
  scope: string;
  /** Microsoft: the device authorization endpoint. */
  deviceUrl: string;
  /** Google: the authorization endpoint and the loopback redirect registered for the client. */
  authUrl: string;
  redirectUri: string;
  random: Random;
  loginHint?: string;
  /** Says something to the operator (the URL to open, the code to type). */
  prompt(text: string): void;
  /** Asks the operator for a line (Google: the redirected URL). */
  readLine(question: string): Promise<string>;
}

/** What a method's silence watch says (MethodDescriptor.silence). */
export interface SilenceReport {
  /** Each watched receiving account (a bank's, its last digits only) and its newest trusted message, ms (null: none recorded). */
  accounts: Array<{ bank: string; account: string; lastAlertAt: number | null }>;
  /** The newest trusted message over all accounts, ms. */
  lastAlertAt: number | null;
  /** The oldest intent created after that message (the first sale nothing has answered), ms. */
  waitingSince: number | null;
  /** The configured limit, ms; undefined: the alarm is off. */
  expectMs?: number;
  /** True when an intent has waited longer than expectMs with nothing arriving after it. */
  silent: boolean;
}

export interface MethodSilence {
  /** The method watched (its id): readiness and the alarms name it so. */
  readonly method: string;
  /** The limit, ms; undefined: reported (console, metrics, doctor), never alarmed. */
  readonly expectMs?: number;
  status(): Promise<SilenceReport>;
}

export interface OpenApiExample {
  amount: number;
  pay_amount: number;
  payment_address: string;
  payment_uri: string;
  /** A settled intent's transaction_hash. */
  transaction_hash: string;
  /** Bounds for the AMOUNT_OUT_OF_RANGE example, in the method's unit. */
  range: [number, number];
}

export interface DepositInput {
  receiver: string;
  payAmountMinor: bigint;
  orderId: string;
  /** Shown by wallets: UPI payee name / Solana Pay label. */
  payeeName: string;
  reference?: string;
  /** Token id: SPL mint or TRC20 contract. */
  token?: string;
}

/** The checkout page's words for one method. */
export interface CheckoutText {
  /** "USDT on TRON (TRC-20)". */
  label: string;
  /** The button that opens the payment link. */
  appButton: string;
  /** "Scan with your <scanWith> app." */
  scanWith: string;
  /** Beside the receiving address: "Address", "UPI ID (VPA)". */
  addressLabel: string;
  /** Said next to the address: a transfer on another network never arrives. */
  warning?: string;
  /** A fiat amount: shown with this sign, fixed decimals and Indian grouping, without the unit. */
  fiatSign?: string;
  /**
   * On an open intent's choice of method: the group payers think in ("UPI", "USDT") and the
   * network as wallets name it ("TRON (TRC-20)"); absent: the label is the group, no network.
   */
  choice?: { group: string; network?: string };
}

/** A method's group and network labels on an open intent's choice (CheckoutText.choice). */
export function methodLabels(m: Pick<MethodDescriptor, 'checkout'>): { group: string; network: string | null } {
  return { group: m.checkout.choice?.group ?? m.checkout.label, network: m.checkout.choice?.network ?? null };
}

export interface MethodSourceDeps extends SourceDeps {
  db?: Db;
  mailboxTokens?: MailboxTokenStore;
}

/** What `payd init` offers a method's questions (cli/commands/init.ts). */
export interface InitWizard {
  input(o: { message: string; default?: string; required?: boolean; validate?: (s: string) => boolean | string }): Promise<string>;
  confirm(o: { message: string; default?: boolean }): Promise<boolean>;
  number(o: { message: string; default?: number; min?: number; max?: number; required?: boolean }): Promise<number | undefined>;
  /** A validator: trimmed input passes `check`, else `message`. */
  req(check: (s: string) => boolean, message: string): (s: string) => boolean | string;
  /** Where a secret is read from (never the secret itself); recorded for the next steps. */
  secret(s: { path: string; what: string; env: string; credential: string }): Promise<unknown>;
  /** systemd credential names (cli/systemd-recipe.ts). */
  credentials: { imapPassword: string; trongridKey: string };
}
