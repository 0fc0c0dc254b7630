// @payd/client: payd's merchant API over the platform's fetch, and webhook verification on WebCrypto.
export { PaydClient, type PaydClientOptions } from './client.js';
export { PaydApiError, PaydError, PaydNetworkError, WebhookVerificationError } from './errors.js';
export { verifyWebhook, type VerifiedWebhook, type VerifyWebhookOptions, type WebhookHeaders } from './webhook.js';
export type * from './types.js';
export type { components, paths, webhooks } from './api.js';
