import { Type } from '@sinclair/typebox';
import type { AppContext } from '../../app-context.ts';
import { Money } from '../../http/input-types.ts';
import { listPage, pageParameters } from '../../http/pagination.ts';
import { actorOf, inRequestTransaction } from '../../http/request-write.ts';
import { type App, accountOf } from '../../http/routes.ts';
import { errorResponses, Flag, IdParams, NoContent } from '../../http/schemas.ts';
import { microsToAmount } from '../../money.ts';
import { readMoney } from '../../shared/money-input.ts';
import { recordAudit } from '../audit/index.ts';
import {
  lowBalanceLine,
  NOTIFICATION_KINDS,
  notificationPage,
  readAllNotifications,
  readNotification,
  setLowBalanceLine,
  unreadCount,
} from './notification-service.ts';

const NotificationSchema = Type.Object(
  {
    id: Type.Integer({ description: 'Notification id.' }),
    kind: Type.Union(
      NOTIFICATION_KINDS.map((kind) => Type.Literal(kind)),
      {
        description:
          'What it is about: a moderation decision, a low balance, a campaign stopped by its budget, a webhook endpoint disabled.',
      },
    ),
    text: Type.String({ description: 'What happened, written for a person.' }),
    data: Type.Record(Type.String(), Type.Unknown(), {
      description:
        'What it is about, for programs: the object ids, statuses and amounts (docs/notifications.md lists them by kind).',
    }),
    date: Type.String({ format: 'date-time', description: 'When it happened.' }),
    read: Type.Boolean({ description: 'Whether it has been marked read.' }),
  },
  { description: 'Something that needs the account holder’s attention.' },
);

const ListQuery = Type.Object({ ...pageParameters, unread: Type.Optional(Flag('Only notifications not yet read.')) });

const Summary = Type.Object(
  {
    unread: Type.Integer({ description: 'How many notifications are not read yet (the bell’s count).' }),
    lowBalance: Type.Number({
      description: 'The balance below which the account is told it is low, in currency units; 0: never.',
    }),
  },
  { description: 'The account’s notification figures and settings.' },
);

const SettingsBody = Type.Object(
  { lowBalance: Money('The balance below which to be told it is low, in currency units; 0: never.', { minimum: 0 }) },
  { additionalProperties: false },
);

/** Every account's notifications: the list, the unread count, marking read, the low-balance line. */
export function registerNotificationRoutes(app: App, context: AppContext): void {
  const { db, clock } = context;
  const tags = ['Notifications'];
  const summaryOf = async (accountId: number) => ({
    unread: await unreadCount(db, accountId),
    lowBalance: microsToAmount(await lowBalanceLine(db, accountId)),
  });

  app.get(
    '/api/notifications',
    {
      schema: {
        tags,
        operationId: 'listNotifications',
        summary: 'The account’s notifications, newest first (`unread=1`: only those not read).',
        querystring: ListQuery,
        response: { 200: Type.Array(NotificationSchema), ...errorResponses(401, 422) },
      },
    },
    async (request, reply) => {
      const accountId = accountOf(request);
      const unreadOnly = request.query.unread === true;
      const rows = await listPage(request, reply, (limit, offset) => notificationPage(db, accountId, unreadOnly, limit, offset));
      return rows.map((row) => ({
        id: Number(row.id),
        kind: row.kind as (typeof NOTIFICATION_KINDS)[number],
        text: row.text,
        data: JSON.parse(row.data) as Record<string, unknown>,
        date: row.created_at.toISOString(),
        read: row.read_at !== null,
      }));
    },
  );

  app.get(
    '/api/notifications/summary',
    {
      schema: {
        tags,
        operationId: 'getNotificationSummary',
        summary: 'How many notifications are unread, and the low-balance line.',
        response: { 200: Summary, ...errorResponses(401) },
      },
    },
    async (request) => summaryOf(accountOf(request)),
  );

  app.put(
    '/api/notifications/settings',
    {
      schema: {
        tags,
        operationId: 'setNotificationSettings',
        summary: 'Set the balance below which the account is told its balance is low (advertisers).',
        body: SettingsBody,
        response: { 200: Summary, ...errorResponses(401, 422) },
      },
    },
    async (request) => {
      const accountId = accountOf(request);
      const micros = readMoney(request.body.lowBalance, 'lowBalance', { sign: 'non-negative' });
      const now = new Date(clock.now());
      await inRequestTransaction(request, db, async (trx) => {
        const before = await lowBalanceLine(trx, accountId);
        await setLowBalanceLine(trx, accountId, micros, now);
        const change = {
          action: 'notifications.settings',
          objectType: 'account',
          objectId: accountId,
          subjectAccountId: accountId,
          before: { lowBalance: microsToAmount(before) },
          after: { lowBalance: microsToAmount(micros) },
        };
        await recordAudit(trx, actorOf(request), change, now);
      });
      return summaryOf(accountId);
    },
  );

  app.post(
    '/api/notifications/:id/read',
    {
      schema: {
        tags,
        operationId: 'readNotification',
        summary: 'Mark one notification read.',
        params: IdParams,
        response: { 204: NoContent, ...errorResponses(401, 404) },
      },
    },
    async (request, reply) => {
      const now = new Date(clock.now());
      await inRequestTransaction(request, db, (trx) => readNotification(trx, accountOf(request), request.params.id, now));
      reply.code(204);
    },
  );

  app.post(
    '/api/notifications/read',
    {
      schema: {
        tags,
        operationId: 'readAllNotifications',
        summary: 'Mark every notification of the account read.',
        response: { 204: NoContent, ...errorResponses(401) },
      },
    },
    async (request, reply) => {
      const now = new Date(clock.now());
      await inRequestTransaction(request, db, (trx) => readAllNotifications(trx, accountOf(request), now));
      reply.code(204);
    },
  );
}
