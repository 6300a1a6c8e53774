import { Type } from '@sinclair/typebox';
import type { AppContext } from '../../../app-context.ts';
import { uncheckedBody } from '../../../http/field-rules.ts';
import { Count, Money, Text } from '../../../http/input-types.ts';
import { requestDb } from '../../../http/request-write.ts';
import { type App, accountOf } from '../../../http/routes.ts';
import { errorResponses, Flag, IdParams } from '../../../http/schemas.ts';
import { absoluteUrl, created } from '../../../http/urls.ts';
import { BlockDesignInput } from './block-design.ts';
import { BlockSchema, MAX_TEASERS, MIN_TEASERS, toBlock } from './block-schema.ts';
import { blockFieldErrors, changeBlock, createBlock, DEFAULT_TEASERS, getOwnBlock } from './block-service.ts';

const TEASERS = { minimum: MIN_TEASERS, maximum: MAX_TEASERS };

const NoCampaignRepeats = Flag(
  'true: at most one ad per campaign in the block, and none of a campaign another block of the same page view showed; false (default): only ads do not repeat on a page (extension).',
);

const CreateBlockBody = Type.Object(
  {
    title: Text('Block header.', { minLength: 1, maxLength: 255 }),
    count: Type.Optional(
      Count(`How many teasers the block shows at once, ${MIN_TEASERS}-${MAX_TEASERS} (default ${DEFAULT_TEASERS}).`, TEASERS),
    ),
    size: Type.Optional(Count('Alias of `count`.', TEASERS)),
    noCampaignRepeats: Type.Optional(NoCampaignRepeats),
  },
  { additionalProperties: false },
);

const ChangeBlockBody = Type.Object(
  {
    noCampaignRepeats: Type.Optional(NoCampaignRepeats),
    minCpc: Type.Optional(
      Money(
        'Minimum price of a click on the block: ads whose bid × coefficients is lower do not compete, and no click costs less; 0 clears (extension).',
        { minimum: 0, maximum: 10_000 },
      ),
    ),
    design: Type.Optional(Type.Union([BlockDesignInput, Type.Null()], { description: BlockDesignInput.description })),
  },
  { additionalProperties: false },
);

/** Blocks of the platform's publisher API (docs/publisher.md) and the block-creation extension. */
export function registerBlockRoutes(app: App, context: AppContext): void {
  const { db, clock } = context;
  const tags = ['Publisher'];

  app.get(
    '/api/webmaster/blocks/:id',
    {
      schema: {
        tags,
        operationId: 'getBlock',
        summary: 'One block with its embed code.',
        params: IdParams,
        response: { 200: BlockSchema, ...errorResponses(401, 403, 404) },
      },
    },
    async (request) => {
      const block = await getOwnBlock(db, accountOf(request), request.params.id);
      return toBlock(block, absoluteUrl(request, ''));
    },
  );

  app.put(
    '/api/webmaster/blocks/:id',
    {
      schema: {
        tags,
        operationId: 'updateBlock',
        summary: 'Change a block’s options (extension): `noCampaignRepeats`, `minCpc`, `design`.',
        params: IdParams,
        body: ChangeBlockBody,
        response: { 200: BlockSchema, ...errorResponses(401, 403, 404, 422) },
      },
    },
    async (request) => {
      const block = await changeBlock(db, accountOf(request), request.params.id, request.body);
      return toBlock(block, absoluteUrl(request, ''));
    },
  );

  app.post(
    '/api/webmaster/sites/:id/blocks',
    {
      schema: {
        tags,
        operationId: 'createBlock',
        summary:
          'Add a block to a site (extension); its `bn` is the embed code to paste into the site. 409 when the site is banned.',
        params: IdParams,
        body: CreateBlockBody,
        response: { 201: BlockSchema, ...errorResponses(401, 403, 404, 409, 422) },
      },
      config: { fieldRules: async (request) => blockFieldErrors(uncheckedBody(request)), idempotent: true },
    },
    async (request, reply) => {
      const block = await createBlock(
        requestDb(request, db),
        accountOf(request),
        request.params.id,
        request.body,
        new Date(clock.now()),
      );
      return created(request, reply, `/api/webmaster/blocks/${block.id}`, toBlock(block, absoluteUrl(request, '')));
    },
  );
}
