// undici through one of our own modules, loaded with import() at the first delivery: the bundle
// then keeps its named exports (a bare import('undici') of the CommonJS package bundles to a
// default export only).
export { Agent, request } from 'undici';
