import type { Generated } from 'kysely';

/**
 * Kysely table types. Times: ms since epoch; money: base units as `StoredAmount` (db/amounts.ts:
 * written with amountToDb, read with amountFromDb).
 */
export type StoredAmount = string;

export interface MerchantsTable {
  id: string;
  name: string;
  secret_hash: string;
  webhook_url: string | null;
  webhook_secret_sealed: string;
  webhook_secret_prev_sealed: string | null;
  webhook_secret_prev_until: number | null;
  /** The previous client secret's hash, valid until secret_prev_until (rotation grace). */
  secret_prev_hash: string | null;
  secret_prev_until: number | null;
  status: 'active' | 'revoked';
  created_at: number;
  updated_at: number;
}

export type IntentStatus = 'pending' | 'settled' | 'expired' | 'canceled';

export interface IntentsTable {
  id: string;
  merchant_id: string;
  order_id: string;
  method: string;
  amount_minor: StoredAmount;
  pay_amount_minor: StoredAmount;
  receiver: string;
  reference: string | null;
  payment_uri: string;
  status: IntentStatus;
  return_url: string | null;
  created_at: number;
  expires_at: number;
  transaction_hash: string | null;
  verified_at: number | null;
  payment_id: string | null;
  updated_at: number;
  /** Set when the merchant canceled it (006); absent in rows written before. */
  canceled_at?: number | null;
  /** Payments shown on the intent (credited, held, refunded) (022); absent before. */
  payment_count?: number;
  /** A fiat price and its locked quote (026); null for intents created with `amount`. */
  price_amount?: string | null;
  price_currency?: string | null;
  quote_rate?: string | null;
  quote_source?: string | null;
  quoted_at?: number | null;
  quote_valid_until?: number | null;
  /** An open intent (028): the methods offered, comma-separated; null for an intent created with a currency. */
  offered_methods?: string | null;
  /** An open intent's choices so far (028): JSON, db/intent-rows.ts; null before the first. */
  choices?: string | null;
  /** The payment link the intent was created from (029); null for the API's creates. */
  link_id?: string | null;
}

/** A payment link (029): owned by services/links. Amounts are decimal text in price_currency (a fiat). */
export interface PaymentLinksTable {
  id: string;
  /** The short unguessable path segment of its public URL. */
  slug: string;
  merchant_id: string;
  title: string;
  /** A fixed price; null: the customer enters the amount, within min_amount..max_amount. */
  price_amount: string | null;
  price_currency: string;
  min_amount: string | null;
  max_amount: string | null;
  /** JSON array of method ids; null: every enabled method. */
  methods_json: string | null;
  single_use: number;
  expires_at: number | null;
  active: number;
  /** Intents created so far: each one's order_id is numbered from it. */
  orders: number;
  created_at: number;
  updated_at: number;
}

/** The rate cache (026): per pair and source, the last good rate and the last attempt. Owned by pricing/book.ts. */
export interface RatesTable {
  pair: string;
  source: string;
  /** Decimal text: price currency per 1 base unit; null until a fetch succeeded. */
  rate: string | null;
  fetched_at: number | null;
  source_at: number | null;
  /** 1: the stored rate was too far from the pair's median and is not used. */
  outlier: number;
  checked_at: number;
  error: string | null;
  /** Failed attempts in a row. */
  failures: number;
}

export interface AmountReservationsTable {
  method: string;
  receiver: string;
  pay_amount_minor: StoredAmount;
  intent_id: string;
  reserved_until: number;
}

export interface PaymentsTable {
  id: string;
  method: string;
  tx_ref: string;
  receiver: string;
  amount_minor: StoredAmount;
  references_json: string | null;
  source: string;
  occurred_at: number;
  observed_at: number;
  /** matched = credited to intent_id; held / refunded: attributed to intent_id, not credited (022). */
  status: 'matched' | 'unmatched' | 'held' | 'refunded';
  reason: string | null;
  intent_id: string | null;
  evidence_json: string | null;
  note: string | null;
  /** The chain transaction the merchant sees (022); null: tx_ref. */
  tx_hash?: string | null;
}

export interface RejectionsTable {
  ref: string;
  source: string;
  method: string;
  reason: string;
  detail_json: string | null;
  raw: Uint8Array | null;
  observed_at: number;
}

export type EventStatus = 'pending' | 'delivered' | 'failed' | 'skipped';

export interface EventsTable {
  id: string;
  merchant_id: string;
  intent_id: string | null;
  type: string;
  body: string;
  status: EventStatus;
  /** Every attempt ever made, replays included. */
  attempts: number;
  /** `attempts` when the last replay started: the retry schedule restarts from there. */
  retry_base?: number;
  next_attempt_at: number;
  locked_until: number;
  /** Holder id of the worker lease under which the delivery lease was taken (null: CLI or older versions). */
  locked_by: string | null;
  last_error: string | null;
  created_at: number;
  delivered_at: number | null;
  /** Written order (006): the event feed's position. */
  seq?: number | null;
}

export interface WebhookAttemptsTable {
  id: Generated<number>;
  event_id: string;
  attempt: number;
  url: string;
  started_at: number;
  duration_ms: number;
  status_code: number | null;
  error: string | null;
}

export interface CheckpointsTable {
  key: string;
  value_json: string;
  updated_at: number;
}

export interface SequencesTable {
  name: string;
  value: number;
}

export interface AuditLogTable {
  id: Generated<number>;
  at: number;
  actor: string;
  action: string;
  subject: string | null;
  details_json: string | null;
}

export interface SandboxTransfersTable {
  seq: Generated<number>;
  method: string;
  receiver: string;
  amount_minor: StoredAmount;
  tx_ref: string;
  reference: string | null;
  created_at: number;
}

export interface SettingsTable {
  key: string;
  value: string;
  updated_at: number;
}

export interface WorkerLeaseTable {
  name: string;
  holder: string;
  host: string;
  pid: number;
  acquired_at: number;
  expires_at: number;
}

/** UPI mail waiting for the bank's DNS (DKIM key / DMARC record) to answer. */
export interface UpiParkedMailTable {
  ref: string;
  mailbox: string;
  uid_validity: string;
  uid: number;
  raw: Uint8Array;
  received_at: number | null;
  bank: string | null;
  reason: string;
  parked_at: number;
  attempts: number;
  next_attempt_at: number;
}

/** Verified bank mail that no template reads (reported by `payd doctor`). */
export interface UpiUnreadAlertsTable {
  ref: string;
  mailbox: string;
  bank: string;
  subject: string | null;
  raw: Uint8Array;
  observed_at: number;
}

/** A UPI message being inspected; a row left by a crash makes it `inspector_crash` at the next start. */
export interface UpiInspectingTable {
  mailbox: string;
  ref: string;
  uid: number;
  started_at: number;
  /** The source run that marked it. */
  holder: string;
}

/** The newest refresh token a mail provider handed out for one mailbox (sealed). */
export interface MailboxOAuthTokensTable {
  key: string;
  refresh_token_sealed: string;
  configured_hash: string;
  updated_at: number;
}

/** A single-use link that registers one passkey for the operator console. */
export interface ConsoleInvitesTable {
  token_hash: string;
  name: string;
  created_at: number;
  expires_at: number;
  used_at: number | null;
}

export interface ConsolePasskeysTable {
  id: string;
  name: string;
  public_key: string;
  counter: number;
  transports: string | null;
  created_at: number;
  last_used_at: number | null;
  revoked_at: number | null;
}

export interface ConsoleSessionsTable {
  id: string;
  token_hash: string;
  passkey_id: string;
  csrf: string;
  address: string | null;
  created_at: number;
  last_seen_at: number;
  revoked_at: number | null;
}

export interface ConsoleChallengesTable {
  challenge: string;
  purpose: 'register' | 'login';
  invite_hash: string | null;
  expires_at: number;
}

/** A message to a person (db/notifications.ts owns its verbs). */
export interface NotificationsTable {
  id: string;
  channel: 'telegram' | 'email';
  target: string;
  dedup_key: string;
  kind: string;
  text: string;
  /** Telegram inline buttons: [[{ text, callback_data }]]. */
  buttons_json: string | null;
  status: 'pending' | 'sent' | 'failed';
  attempts: number;
  next_attempt_at: number;
  locked_until: number;
  last_error: string | null;
  created_at: number;
  sent_at: number | null;
}

/** The callback_data payd put on an inline button: valid once, in its chat, until it expires. */
export interface TelegramActionsTable {
  token: string;
  chat_id: string;
  action: string;
  intent_id: string;
  transaction_hash: string;
  created_at: number;
  expires_at: number;
  used_at: number | null;
  used_by: string | null;
}

export interface Database {
  merchants: MerchantsTable;
  intents: IntentsTable;
  rates: RatesTable;
  amount_reservations: AmountReservationsTable;
  payments: PaymentsTable;
  rejections: RejectionsTable;
  events: EventsTable;
  webhook_attempts: WebhookAttemptsTable;
  checkpoints: CheckpointsTable;
  audit_log: AuditLogTable;
  sandbox_transfers: SandboxTransfersTable;
  settings: SettingsTable;
  sequences: SequencesTable;
  upi_parked_mail: UpiParkedMailTable;
  upi_unread_alerts: UpiUnreadAlertsTable;
  upi_inspecting: UpiInspectingTable;
  worker_lease: WorkerLeaseTable;
  mailbox_oauth_tokens: MailboxOAuthTokensTable;
  console_invites: ConsoleInvitesTable;
  console_passkeys: ConsolePasskeysTable;
  console_sessions: ConsoleSessionsTable;
  console_challenges: ConsoleChallengesTable;
  notifications: NotificationsTable;
  telegram_actions: TelegramActionsTable;
  payment_links: PaymentLinksTable;
}
