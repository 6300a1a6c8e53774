import { Type } from '@sinclair/typebox';
import type { AppContext } from '../../app-context.ts';
import { Text } from '../../http/input-types.ts';
import { actorOf, inRequestTransaction } from '../../http/request-write.ts';
import type { App } from '../../http/routes.ts';
import { errorResponses, IdParams, NoContent } from '../../http/schemas.ts';
import { recordAudit } from '../audit/index.ts';
import { addReason, changeReason, moderationReasons, removeReason } from './reason-service.ts';

const ReasonSchema = Type.Object(
  {
    id: Type.Integer({ description: 'Reason id.' }),
    text: Type.String({ description: 'The reason as the owner of a rejected object reads it.' }),
  },
  { description: 'A reason the operator rejects campaigns, ads and sites with.' },
);

const ReasonBody = Type.Object(
  { text: Text('The reason, written for the owner of the rejected object.', { minLength: 1, maxLength: 500 }) },
  { additionalProperties: false },
);

/** The operator's list of moderation reasons (docs/moderation.md): read, add, reword, remove; every change audited. */
export function registerModerationReasonRoutes(app: App, context: AppContext): void {
  const { db, clock } = context;
  const tags = ['Operator'];
  const audited = (action: string, id: number, before: unknown, after: unknown) => ({
    action: `moderation_reason.${action}`,
    objectType: 'moderation_reason',
    objectId: id,
    before,
    after,
  });

  app.get(
    '/api/admin/moderation-reasons',
    {
      schema: {
        tags,
        operationId: 'adminListModerationReasons',
        summary: 'The reasons to reject with, alphabetically.',
        response: { 200: Type.Array(ReasonSchema), ...errorResponses(401, 403) },
      },
    },
    async () => moderationReasons(db),
  );

  app.post(
    '/api/admin/moderation-reasons',
    {
      schema: {
        tags,
        operationId: 'adminCreateModerationReason',
        summary: 'Add a reason to reject with.',
        body: ReasonBody,
        response: { 201: ReasonSchema, ...errorResponses(401, 403, 422) },
      },
    },
    async (request, reply) => {
      const now = new Date(clock.now());
      const reason = await inRequestTransaction(request, db, async (trx) => {
        const added = await addReason(trx, request.body.text, now);
        await recordAudit(trx, actorOf(request), audited('create', added.id, null, { text: added.text }), now);
        return added;
      });
      reply.code(201);
      return reason;
    },
  );

  app.put(
    '/api/admin/moderation-reasons/:id',
    {
      schema: {
        tags,
        operationId: 'adminUpdateModerationReason',
        summary: 'Reword a reason (decisions already taken keep their words).',
        params: IdParams,
        body: ReasonBody,
        response: { 200: ReasonSchema, ...errorResponses(401, 403, 404, 422) },
      },
    },
    async (request) => {
      const now = new Date(clock.now());
      return inRequestTransaction(request, db, async (trx) => {
        const { before, after } = await changeReason(trx, request.params.id, request.body.text, now);
        await recordAudit(trx, actorOf(request), audited('update', after.id, { text: before.text }, { text: after.text }), now);
        return after;
      });
    },
  );

  app.delete(
    '/api/admin/moderation-reasons/:id',
    {
      schema: {
        tags,
        operationId: 'adminDeleteModerationReason',
        summary: 'Remove a reason from the list.',
        params: IdParams,
        response: { 204: NoContent, ...errorResponses(401, 403, 404) },
      },
    },
    async (request, reply) => {
      const now = new Date(clock.now());
      await inRequestTransaction(request, db, async (trx) => {
        const removed = await removeReason(trx, request.params.id);
        await recordAudit(trx, actorOf(request), audited('delete', removed.id, { text: removed.text }, null), now);
      });
      reply.code(204);
    },
  );
}
