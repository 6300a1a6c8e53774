import { Type } from '@sinclair/typebox';
import type { AppContext } from '../../../app-context.ts';
import { actorOf, inRequestTransaction } from '../../../http/request-write.ts';
import { type App, accountOf } from '../../../http/routes.ts';
import { errorResponses, NoContent } from '../../../http/schemas.ts';
import { created } from '../../../http/urls.ts';
import { recordAudit } from '../../audit/index.ts';
import { postbackKeyState, revokePostbackKey, rotatePostbackKey } from './postback-key-service.ts';

const PATH = '/api/advertiser/postback-key';
const tags = ['Conversions'];

const PostbackKeyStateSchema = Type.Object(
  {
    exists: Type.Boolean({ description: 'Whether the advertiser has a postback key.' }),
    prefix: Type.Optional(
      Type.String({ description: 'The key’s first characters, to recognise it (the key itself is never shown again).' }),
    ),
    createdAt: Type.Optional(Type.String({ format: 'date-time', description: 'When the key was made.' })),
  },
  { description: 'The advertiser’s postback key, without the key.' },
);

const NewPostbackKeySchema = Type.Object(
  {
    key: Type.String({
      description:
        'The postback key, shown this once: send it with each conversion postback (`key` parameter or `X-Postback-Key` header). Only its hash is kept.',
    }),
    prefix: Type.String({ description: 'Its first characters, as later answers show them.' }),
    createdAt: Type.String({ format: 'date-time', description: 'When it was made.' }),
  },
  { description: 'A new postback key; the one before it stopped working.' },
);

/** The advertiser's postback key, which authenticates conversions reported by its server. */
export function registerPostbackKeyRoutes(app: App, context: AppContext): void {
  const { db, clock } = context;

  app.get(
    PATH,
    {
      schema: {
        tags,
        operationId: 'getPostbackKey',
        summary: 'Whether the advertiser has a postback key, and its first characters (extension).',
        response: { 200: PostbackKeyStateSchema, ...errorResponses(401, 403) },
      },
    },
    async (request) => postbackKeyState(db, accountOf(request)),
  );

  app.post(
    PATH,
    {
      schema: {
        tags,
        operationId: 'rotatePostbackKey',
        summary: 'Make a new postback key, shown once (extension); postbacks with the key before it are refused from now on.',
        response: { 201: NewPostbackKeySchema, ...errorResponses(401, 403) },
      },
    },
    async (request, reply) => {
      const advertiserId = accountOf(request);
      const now = new Date(clock.now());
      const key = await inRequestTransaction(request, db, async (trx) => {
        const made = await rotatePostbackKey(trx, advertiserId, now);
        const change = {
          action: 'postback_key.rotate',
          objectType: 'postback_key',
          objectId: advertiserId,
          after: { prefix: made.prefix },
        };
        await recordAudit(trx, actorOf(request), change, now);
        return made;
      });
      return created(request, reply, PATH, key);
    },
  );

  app.delete(
    PATH,
    {
      schema: {
        tags,
        operationId: 'revokePostbackKey',
        summary: 'Delete the postback key (extension): no postback counts until a new key is made. 404 without one.',
        response: { 204: NoContent, ...errorResponses(401, 403, 404) },
      },
    },
    async (request, reply) => {
      const advertiserId = accountOf(request);
      await inRequestTransaction(request, db, async (trx) => {
        await revokePostbackKey(trx, advertiserId);
        const change = { action: 'postback_key.revoke', objectType: 'postback_key', objectId: advertiserId };
        await recordAudit(trx, actorOf(request), change, new Date(clock.now()));
      });
      reply.code(204);
    },
  );
}
