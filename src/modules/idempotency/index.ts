/**
 * The idempotency keys' storage, which the HTTP layer's idempotency (src/http/idempotency.ts) is
 * given when the app is built.
 * Other modules never import this module's repository (docs/tables.md, test/source/imports.test.ts),
 * and this file imports no other module's service, so depending on it never makes an import cycle.
 */
export { idempotencyStore } from './idempotency-repository.ts';
