import { Type } from '@sinclair/typebox';
import type { AppContext } from '../../app-context.ts';
import { Id, Text } from '../../http/input-types.ts';
import { listPage, pageParameters } from '../../http/pagination.ts';
import { type App, accountOf } from '../../http/routes.ts';
import { errorResponses } from '../../http/schemas.ts';
import { AuditEntrySchema, toAuditEntry } from './audit-schema.ts';
import { type AuditFilter, auditPage } from './audit-service.ts';

const period = {
  from: Type.Optional(Type.String({ format: 'date-time', description: 'Only entries at or after this time (ISO 8601).' })),
  to: Type.Optional(Type.String({ format: 'date-time', description: 'Only entries before this time (ISO 8601).' })),
};

const objectFilters = {
  action: Type.Optional(Text('Only this action, e.g. `balance.credit`.', { maxLength: 64 })),
  objectType: Type.Optional(Text('Only actions on this kind of object, e.g. `payout`.', { maxLength: 64 })),
  objectId: Type.Optional(Text('With objectType: only actions on this object.', { maxLength: 64 })),
};

const AdminAuditQuery = Type.Object({
  ...pageParameters,
  accountId: Type.Optional(Id('Only entries this account made or that concern it.')),
  actorId: Type.Optional(Id('Only entries this account made.')),
  actorKind: Type.Optional(
    Text('Only entries made by this kind of actor: operator, advertiser, publisher or system.', { maxLength: 16 }),
  ),
  ...objectFilters,
  ...period,
});

const OwnAuditQuery = Type.Object({ ...pageParameters, ...objectFilters, ...period });

const dateOf = (text: string | undefined) => (text === undefined ? undefined : new Date(text));

/** The audit trail (docs/adr/0013): all of it for operators, its own entries for every account. */
export function registerAuditRoutes(app: App, context: AppContext): void {
  const { db } = context;

  app.get(
    '/api/admin/audit',
    {
      schema: {
        tags: ['Operator'],
        operationId: 'adminListAuditEntries',
        summary: 'The audit trail: every operator action and every money movement, newest first.',
        querystring: AdminAuditQuery,
        response: { 200: Type.Array(AuditEntrySchema), ...errorResponses(401, 403) },
      },
    },
    async (request, reply) => {
      const { query } = request;
      const filter: AuditFilter = { ...query, from: dateOf(query.from), to: dateOf(query.to) };
      const rows = await listPage(request, reply, (limit, offset) => auditPage(db, filter, limit, offset));
      return rows.map((row) => toAuditEntry(row, true));
    },
  );

  app.get(
    '/api/me/audit',
    {
      schema: {
        tags: ['User'],
        operationId: 'listOwnAuditEntries',
        summary: 'Your audit trail: what you did, and what others (operators, the system) did to your account and objects.',
        querystring: OwnAuditQuery,
        response: { 200: Type.Array(AuditEntrySchema), ...errorResponses(401) },
      },
    },
    async (request, reply) => {
      const { query } = request;
      const accountId = accountOf(request);
      const filter: AuditFilter = { ...query, accountId, from: dateOf(query.from), to: dateOf(query.to) };
      const rows = await listPage(request, reply, (limit, offset) => auditPage(db, filter, limit, offset));
      return rows.map((row) => toAuditEntry(row, row.account_id === accountId));
    },
  );
}
