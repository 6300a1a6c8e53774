import { Type } from '@sinclair/typebox';
import type { AppContext } from '../../../app-context.ts';
import { Id } from '../../../http/input-types.ts';
import { type App, accountOf } from '../../../http/routes.ts';
import { errorResponses, IdParams } from '../../../http/schemas.ts';
import { impressionQuery } from './explain-query.ts';
import { BlockExplanationSchema, CampaignExplanationSchema } from './explain-schema.ts';
import { explainCampaign, explainOwnBlock } from './explain-service.ts';

const CampaignExplainQuery = Type.Object({
  block: Id('Block id of the impression to explain (a block of an active site, any publisher).'),
  ...impressionQuery,
});

/** Explanations of serving: an advertiser's campaign in a block, a publisher's block. */
export function registerExplainRoutes(app: App, context: AppContext): void {
  const { db, serving } = context;
  if (serving === undefined) return;

  app.get(
    '/api/advertiser/campaigns/:id/explain',
    {
      schema: {
        tags: ['Campaigns'],
        operationId: 'explainCampaign',
        summary: 'Why each ad of the campaign would or would not show in a block now.',
        description:
          'Reads the serving index itself: eligible ads get their coefficients, CTR estimate, score, rank among the competitors (anonymous) and price; the others their reasons.',
        params: IdParams,
        querystring: CampaignExplainQuery,
        response: { 200: CampaignExplanationSchema, ...errorResponses(401, 403, 404, 422) },
      },
    },
    async (request) => explainCampaign(db, serving, accountOf(request), request.params.id, request.query),
  );

  app.get(
    '/api/webmaster/blocks/:id/explain',
    {
      schema: {
        tags: ['Publisher'],
        operationId: 'explainBlock',
        summary: 'What would fill the block now, and how many ads do not compete, by reason.',
        params: IdParams,
        querystring: Type.Object(impressionQuery),
        response: { 200: BlockExplanationSchema, ...errorResponses(401, 403, 404, 409, 422) },
      },
    },
    async (request) => explainOwnBlock(db, serving, accountOf(request), request.params.id, request.query),
  );
}
