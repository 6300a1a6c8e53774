import { type Static, Type } from '@sinclair/typebox';
import type { OutboxRow } from './outbox-repository.ts';

export const OUTBOX_STATUSES = ['queued', 'sent', 'failed'] as const;

export const OutboxMessageSchema = Type.Object(
  {
    id: Type.Integer({ description: 'Message id.' }),
    kind: Type.String({ description: 'What the message is for, e.g. `email_confirmation`.' }),
    userId: Type.Union([Type.Integer(), Type.Null()], { description: 'The account the message is about.' }),
    to: Type.String({ description: 'Recipient address.' }),
    subject: Type.String({ description: 'Subject.' }),
    text: Type.String({
      description:
        'Plain-text body, with the token of every link in it hidden (`…`): a link that sets a password or confirms a mailbox is a credential. Empty once a message that carried such a link has been delivered.',
    }),
    status: Type.Union(
      OUTBOX_STATUSES.map((status) => Type.Literal(status)),
      {
        description: 'queued (not delivered, or no SMTP_URL), sent (accepted by the SMTP server), failed (last attempt failed).',
      },
    ),
    attempts: Type.Integer({ description: 'Delivery attempts so far.' }),
    error: Type.String({ description: 'Why the last attempt failed; empty otherwise.' }),
    date: Type.String({ format: 'date-time', description: 'When the message was queued.' }),
    sentAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], { description: 'When it was delivered.' }),
  },
  { description: 'An e-mail in the outbox.' },
);

/**
 * The token of a link that sets a password (`/password?token=`) or confirms a mailbox
 * (`/api/confirm/`) works for whoever holds it, so the outbox, read by every operator, shows
 * where a link led but never its token.
 */
const LINK_TOKEN = /(\?token=|\/api\/confirm\/)[A-Za-z0-9_-]+/g;

/** A text with the token of every password or confirmation link in it replaced by `…`. */
export function maskLinkTokens(text: string): string {
  return text.replace(LINK_TOKEN, '$1…');
}

export function toOutboxMessage(row: OutboxRow): Static<typeof OutboxMessageSchema> {
  return {
    id: row.id,
    kind: row.kind,
    userId: row.account_id,
    to: row.recipient,
    subject: row.subject,
    text: maskLinkTokens(row.body_text),
    status: row.status,
    attempts: row.attempts,
    error: row.last_error,
    date: row.created_at.toISOString(),
    sentAt: row.sent_at?.toISOString() ?? null,
  };
}
