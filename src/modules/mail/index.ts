/**
 * What other modules read of mail: the outbox's size by status (the metrics' gauge), and how a
 * text that may carry a password or confirmation link is shown without the link's token.
 * Other modules never import this module's repository (docs/tables.md, test/source/imports.test.ts),
 * and this file imports no other module's service, so depending on it never makes an import cycle.
 */

export type { MailText } from './mail-text.ts';
export { outboxCountsByStatus } from './outbox-repository.ts';
export { maskLinkTokens } from './outbox-schema.ts';
