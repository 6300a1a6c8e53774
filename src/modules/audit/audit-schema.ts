import { Type } from '@sinclair/typebox';
import type { Selectable } from 'kysely';
import type { AuditEntriesTable } from '../../db/schema.ts';

type AuditRow = Selectable<AuditEntriesTable>;

const Nullable = <T extends ReturnType<typeof Type.Integer>>(schema: T) => Type.Union([schema, Type.Null()]);

export const AuditEntrySchema = Type.Object(
  {
    id: Type.Integer({ description: 'Entry id; entries are numbered in the order they were written.' }),
    time: Type.String({ format: 'date-time', description: 'When the action happened (UTC).' }),
    actor: Type.Object(
      {
        accountId: Nullable(Type.Integer({ description: 'The acting account; null for the system itself.' })),
        kind: Type.String({
          description: '`operator`, `advertiser`, `publisher`, or `system` (the settlement of billed clicks).',
        }),
        tokenId: Nullable(Type.Integer({ description: 'The API token used; null with a browser session, or not shown.' })),
        sessionId: Nullable(Type.Integer({ description: 'The browser session used; null with a token, or not shown.' })),
        address: Type.String({
          description:
            'The network of the request: its address truncated to IPv4 /24 or IPv6 /48; empty for the system or when not shown.',
        }),
        requestId: Type.String({
          description: 'The request id (the `X-Request-Id` answered); empty for the system or when not shown.',
        }),
      },
      { description: 'Who did it. On /me/audit, token, session, address and request are shown only for your own actions.' },
    ),
    action: Type.String({
      description: 'What was done, e.g. `balance.credit`, `client.balance_move`, `payout.create`, `site.moderate`.',
    }),
    objectType: Type.String({
      description: 'The kind of object acted on: `account`, `payout`, `site`, `campaign`, `offer`, `token`, …',
    }),
    objectId: Type.String({ description: 'The id of the object acted on.' }),
    subjectAccountId: Nullable(
      Type.Integer({ description: 'The account the object belongs to, which sees the entry on /me/audit.' }),
    ),
    before: Type.Unknown({ description: 'The object’s fields that changed, before the action; null for a creation.' }),
    after: Type.Unknown({ description: 'The same fields after the action; null for a deletion.' }),
  },
  { description: 'One action of the audit trail. Entries are append-only: never changed, never deleted.' },
);

/** An entry as the API shows it; `full` = false hides how and from where another account acted. */
export function toAuditEntry(row: AuditRow, full: boolean) {
  return {
    id: row.id,
    time: row.created_at.toISOString(),
    actor: {
      accountId: row.account_id,
      kind: row.actor_kind,
      tokenId: full ? row.token_id : null,
      sessionId: full ? row.session_id : null,
      address: full ? row.remote_address : '',
      requestId: full ? row.request_id : '',
    },
    action: row.action,
    objectType: row.object_type,
    objectId: row.object_id,
    subjectAccountId: row.subject_account_id,
    before: row.before ?? null,
    after: row.after ?? null,
  };
}
