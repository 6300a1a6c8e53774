/**
 * What other modules use of mail: the languages messages are written in, their texts, queueing a
 * message to an account and a mailbox confirmation, the outbox's size by status (the metrics'
 * gauge) and its schema with link tokens masked, and the mailer the server runs.
 */
export { queueEmailConfirmation } from './confirmation-service.ts';
export { createEmailConfirmation } from './email-confirmation.ts';
export { type Language, LanguageSchema } from './languages.ts';
export { type MailText, mailText } from './mail-text.ts';
export { Mailer, type MailLog } from './mailer.ts';
export { type ComposedMessage, escapeHtml, registrationMessage } from './messages.ts';
export { outboxCountsByStatus } from './outbox-repository.ts';
export { maskLinkTokens, OutboxMessageSchema, toOutboxMessage } from './outbox-schema.ts';
export { deliverNow, type OutboxRow, queueAccountMessage } from './outbox-service.ts';
