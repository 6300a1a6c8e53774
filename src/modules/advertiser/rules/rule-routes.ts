import { Type } from '@sinclair/typebox';
import type { AppContext } from '../../../app-context.ts';
import { Id } from '../../../http/input-types.ts';
import { listPage, pageParameters } from '../../../http/pagination.ts';
import { type App, accountOf } from '../../../http/routes.ts';
import { errorResponses, Flag, NoContent } from '../../../http/schemas.ts';
import { AppliedChangeSchema, HistoryRuleSchema, RuleBodySchema, RuleSchema, RunResultSchema } from './rule-schema.ts';
import {
  createRule,
  deleteRule,
  getRule,
  listCampaignRules,
  replaceRule,
  ruleChangeHistory,
  rulesInHistory,
  runRuleByHand,
} from './rule-service.ts';

const CampaignParams = Type.Object({ campaign: Id('Campaign id.') });
const RuleParams = Type.Object({ campaign: Id('Campaign id.'), id: Id('Rule id.') });
const RunQuery = Type.Object({
  dryRun: Type.Optional(Flag('True: answer what the run would change now, and change nothing (default false).')),
});
const HistoryQuery = Type.Object({
  ...pageParameters,
  ruleId: Type.Optional(Id('Only the changes of this rule.')),
});

/** Advertisers' optimisation rules of a campaign: CRUD, run (or dry run) and the history of applied changes. */
export function registerRuleRoutes(app: App, context: AppContext): void {
  const { db, clock, config } = context;
  const tags = ['Optimisation rules'];
  const base = '/api/advertiser/campaigns/rules/:campaign';
  const now = () => new Date(clock.now());

  app.get(
    base,
    {
      schema: {
        tags,
        operationId: 'listRules',
        summary: 'The optimisation rules of a campaign, by id.',
        params: CampaignParams,
        response: { 200: Type.Array(RuleSchema), ...errorResponses(401, 403, 404) },
      },
    },
    async (request) => listCampaignRules(db, accountOf(request), request.params.campaign),
  );

  app.post(
    base,
    {
      schema: {
        tags,
        operationId: 'createRule',
        summary: 'Add an optimisation rule to a campaign; the scheduler first runs it at once.',
        params: CampaignParams,
        body: RuleBodySchema,
        response: { 201: RuleSchema, ...errorResponses(401, 403, 404, 422) },
      },
    },
    async (request, reply) => {
      const rule = await createRule(db, accountOf(request), request.params.campaign, request.body, now());
      reply.code(201);
      return rule;
    },
  );

  // Registered before /rules/:id so that the literal paths are not read as a rule id.
  app.get(
    `${base}/changes`,
    {
      schema: {
        tags,
        operationId: 'listRuleChanges',
        summary: 'The changes rules applied to the campaign, newest first, with the figures that triggered them.',
        params: CampaignParams,
        querystring: HistoryQuery,
        response: { 200: Type.Array(AppliedChangeSchema), ...errorResponses(401, 403, 404) },
      },
    },
    async (request, reply) =>
      listPage(request, reply, (limit, offset) =>
        ruleChangeHistory(
          db,
          { advertiserId: accountOf(request), campaignId: request.params.campaign, ruleId: request.query.ruleId },
          limit,
          offset,
        ),
      ),
  );

  app.get(
    `${base}/changes/rules`,
    {
      schema: {
        tags,
        operationId: 'listRuleChangeRules',
        summary: 'The rules that applied changes to the campaign, deleted ones too, by id: what its history can be filtered by.',
        params: CampaignParams,
        response: { 200: Type.Array(HistoryRuleSchema), ...errorResponses(401, 403, 404) },
      },
    },
    async (request) => rulesInHistory(db, accountOf(request), request.params.campaign),
  );

  app.get(
    `${base}/:id`,
    {
      schema: {
        tags,
        operationId: 'getRule',
        summary: 'One optimisation rule.',
        params: RuleParams,
        response: { 200: RuleSchema, ...errorResponses(401, 403, 404) },
      },
    },
    async (request) => getRule(db, accountOf(request), request.params.campaign, request.params.id),
  );

  app.put(
    `${base}/:id`,
    {
      schema: {
        tags,
        operationId: 'replaceRule',
        summary: 'Replace an optimisation rule (every field; omitted optional ones take their defaults).',
        params: RuleParams,
        body: RuleBodySchema,
        response: { 200: RuleSchema, ...errorResponses(401, 403, 404, 422) },
      },
    },
    async (request) =>
      replaceRule(
        db,
        { advertiserId: accountOf(request), ...request.params, campaignId: request.params.campaign },
        request.body,
        now(),
      ),
  );

  app.delete(
    `${base}/:id`,
    {
      schema: {
        tags,
        operationId: 'deleteRule',
        summary: 'Delete an optimisation rule; the changes it applied stay in the history.',
        params: RuleParams,
        response: { 204: NoContent, ...errorResponses(401, 403, 404) },
      },
    },
    async (request, reply) => {
      await deleteRule(
        db,
        { advertiserId: accountOf(request), campaignId: request.params.campaign, id: request.params.id },
        now(),
      );
      reply.code(204);
    },
  );

  app.post(
    `${base}/:id/run`,
    {
      schema: {
        tags,
        operationId: 'runRule',
        summary: 'Run a rule now, or with `dryRun=true` answer what it would change without changing anything.',
        description:
          'A run applies every change in one transaction and records each in the history with the figures and window that triggered it. A dry run computes the same list with the same code.',
        params: RuleParams,
        querystring: RunQuery,
        response: { 200: RunResultSchema, ...errorResponses(401, 403, 404) },
      },
    },
    async (request) =>
      runRuleByHand(
        db,
        { advertiserId: accountOf(request), campaignId: request.params.campaign, id: request.params.id },
        { dryRun: request.query.dryRun ?? false, now: now(), timeZone: config.timeZone },
      ),
  );
}
