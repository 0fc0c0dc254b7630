/** The hosted checkout page: HTTP routes plus the live-status websocket. */
export { registerCheckout, type CheckoutDeps } from './routes.ts';
export { createCheckoutSockets, type CheckoutSockets, type CheckoutSocketDeps } from './ws.ts';
