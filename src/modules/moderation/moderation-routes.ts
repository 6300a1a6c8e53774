import { type TInteger, type TSchema, Type } from '@sinclair/typebox';
import type { AppContext } from '../../app-context.ts';
import { actorOf, inRequestTransaction } from '../../http/request-write.ts';
import { type App, accountOf, type RegisterRoutes } from '../../http/routes.ts';
import { errorResponses, IdParams } from '../../http/schemas.ts';
import type { ModeratedKind, ModeratedSites } from './moderated-kind.ts';
import { CurrentReasonSchema, ModerationReasonInput, reasonOf } from './moderation-input.ts';
import { decide, resubmit } from './moderation-service.ts';
import { ModerationStatusSchema } from './moderation-status.ts';

/** A campaign's or an ad's decision as the API answers it. */
const DecisionAnswer = Type.Object(
  { id: Type.Integer({ description: 'Object id.' }), status: ModerationStatusSchema(), reason: CurrentReasonSchema },
  { description: 'The moderation status now in force.' },
);

/** A campaign's or an ad's row answered as a DecisionAnswer: the reason only when there is one. */
const decisionAnswerOf =
  <Row>(kind: ModeratedKind<Row>) =>
  (row: Row) => {
    const { id, status, reason } = kind.read(row);
    return reason === null ? { id, status } : { id, status, reason };
  };

/** One kind's decision route: `PUT /api/admin/<kind>/{id}` with a status and a reason. */
interface DecisionRoute<Row> {
  path: string;
  operationId: string;
  summary: string;
  kind: ModeratedKind<Row>;
  /** The status as the kind's API codes it. */
  status: TInteger;
  answer: TSchema;
  present(row: Row): unknown;
}

function registerDecisionRoute<Row>(app: App, { db, clock }: AppContext, route: DecisionRoute<Row>): void {
  const body = Type.Object(
    { status: route.status, reason: Type.Optional(ModerationReasonInput) },
    { additionalProperties: false },
  );
  app.put(
    route.path,
    {
      schema: {
        tags: ['Operator'],
        operationId: route.operationId,
        summary: route.summary,
        params: IdParams,
        body,
        response: { 200: route.answer, ...errorResponses(401, 403, 404, 422) },
      },
    },
    async function decideOnObject(request) {
      const now = new Date(clock.now());
      const wanted = { status: request.body.status, reason: reasonOf(request.body.reason) };
      const row = await inRequestTransaction(request, db, (trx) =>
        decide(trx, actorOf(request), route.kind, request.params.id, wanted, now),
      );
      return route.present(row);
    },
  );
}

/** One kind's resubmission route: its owner sends a rejected object back to moderation. */
interface ResubmissionRoute<Row> {
  path: string;
  operationId: string;
  tag: string;
  summary: string;
  kind: ModeratedKind<Row>;
  answer: TSchema;
  present(row: Row): unknown;
}

function registerResubmissionRoute<Row>(app: App, { db, clock }: AppContext, route: ResubmissionRoute<Row>): void {
  app.post(
    route.path,
    {
      schema: {
        tags: [route.tag],
        operationId: route.operationId,
        summary: route.summary,
        params: IdParams,
        response: { 200: route.answer, ...errorResponses(401, 403, 404, 409) },
      },
    },
    async function resubmitObject(request) {
      const now = new Date(clock.now());
      const row = await inRequestTransaction(request, db, (trx) =>
        resubmit(trx, actorOf(request), route.kind, accountOf(request), request.params.id, now),
      );
      return route.present(row);
    },
  );
}

/**
 * The kinds the decision routes decide on, each provided by the module that owns its table and
 * handed in by app.ts (those modules read the statuses from this one, so this one imports none of
 * them).
 */
export interface ModeratedKinds<Campaign, Offer> {
  campaign: ModeratedKind<Campaign>;
  offer: ModeratedKind<Offer>;
}

/** The operator's decisions on campaigns and ads, and their advertisers' resubmissions. */
export const moderationRoutes =
  <Campaign, Offer>({ campaign, offer }: ModeratedKinds<Campaign, Offer>): RegisterRoutes =>
  (app, context) => {
    registerDecisionRoute(app, context, {
      path: '/api/admin/campaigns/:id',
      operationId: 'adminModerateCampaign',
      summary: 'Approve or reject a campaign (or send it back to moderation).',
      kind: campaign,
      status: ModerationStatusSchema(),
      answer: DecisionAnswer,
      present: decisionAnswerOf(campaign),
    });
    registerDecisionRoute(app, context, {
      path: '/api/admin/offers/:id',
      operationId: 'adminModerateOffer',
      summary: 'Approve or reject an ad (or send it back to moderation).',
      kind: offer,
      status: ModerationStatusSchema(),
      answer: DecisionAnswer,
      present: decisionAnswerOf(offer),
    });
    registerResubmissionRoute(app, context, {
      path: '/api/advertiser/campaigns/resubmit/:id',
      operationId: 'resubmitCampaign',
      tag: 'Campaigns',
      summary: 'Send a rejected campaign back to moderation (extension); 409 when it is not rejected.',
      kind: campaign,
      answer: DecisionAnswer,
      present: decisionAnswerOf(campaign),
    });
    registerResubmissionRoute(app, context, {
      path: '/api/advertiser/offers/resubmit/:id',
      operationId: 'resubmitOffer',
      tag: 'Ads',
      summary: 'Send a rejected ad back to moderation (extension); 409 when it is not rejected.',
      kind: offer,
      answer: DecisionAnswer,
      present: decisionAnswerOf(offer),
    });
  };

/**
 * The operator's decisions on sites (four statuses: a ban is a rejection), answered as the
 * operator's list shows a site, and the publisher's resubmission of a banned site.
 */
export const siteModerationRoutes =
  <Site>(sites: ModeratedSites<Site>): RegisterRoutes =>
  (app, context) => {
    const { db } = context;
    registerDecisionRoute(app, context, {
      path: '/api/admin/sites/:id',
      operationId: 'adminModerateSite',
      summary: 'Moderate a site: 0 moderation, 1 active (approved), 2 banned, 3 unconfirmed.',
      kind: sites.kind,
      status: sites.status,
      answer: sites.operatorAnswer,
      present: (site) => sites.presentToOperator(db, site),
    });
    registerResubmissionRoute(app, context, {
      path: '/api/webmaster/sites/:id/resubmit',
      operationId: 'resubmitSite',
      tag: 'Publisher',
      summary: 'Send a banned site back to moderation (extension); 409 when it is not banned.',
      kind: sites.kind,
      answer: sites.ownerAnswer,
      present: (site) => sites.presentToOwner(db, site),
    });
  };
