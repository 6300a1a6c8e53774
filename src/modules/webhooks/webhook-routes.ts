import { Type } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import type { AppContext } from '../../app-context.ts';
import { Id } from '../../http/input-types.ts';
import { listPage, pageParameters } from '../../http/pagination.ts';
import { type App, accountOf } from '../../http/routes.ts';
import { errorResponses, IdParams, NoContent } from '../../http/schemas.ts';
import { created } from '../../http/urls.ts';
import { listAttempts, listDeliveries, listEndpoints } from './webhook-repository.ts';
import {
  AttemptSchema,
  ChangeEndpointBody,
  CreateEndpointBody,
  DELIVERY_STATUSES,
  DeliverySchema,
  EndpointSchema,
  EndpointWithSecretSchema,
  RotateSecretBody,
  toAttempt,
  toDelivery,
  toEndpoint,
} from './webhook-schema.ts';
import {
  changeEndpoint,
  createEndpoint,
  DEFAULT_GRACE_SECONDS,
  getEndpoint,
  type Owner,
  queueTestEvent,
  removeEndpoint,
  rotateSecret,
  scheduleRedelivery,
} from './webhook-service.ts';

/** Each kind of account manages its endpoints under its own entry point; an operator's receive every account's events. */
const ENTRY_POINTS = [
  { prefix: '/api/advertiser', operation: 'advertiser', tags: ['Advertiser'] },
  { prefix: '/api/webmaster', operation: 'publisher', tags: ['Publisher'] },
  { prefix: '/api/admin', operation: 'admin', tags: ['Operator'] },
] as const;

const DeliveryParams = Type.Object({ id: Id('Endpoint id.'), deliveryId: Id('Delivery id.') });
const DeliveriesQuery = Type.Object({
  ...pageParameters,
  status: Type.Optional(
    Type.Union(
      DELIVERY_STATUSES.map((status) => Type.Literal(status)),
      { description: 'Only deliveries in this state.' },
    ),
  ),
});
const PageQuery = Type.Object(pageParameters);

function ownerOf(request: FastifyRequest): Owner {
  const accountId = accountOf(request);
  return { accountId, kind: request.principal?.kind ?? 'advertiser' };
}

const capitalized = (word: string) => `${word.charAt(0).toUpperCase()}${word.slice(1)}`;

/** One entry point's webhook routes: its path prefix, its operations' names and its tags. */
type EntryPoint = (typeof ENTRY_POINTS)[number];

/** What each group of webhook routes uses. */
interface WebhookRouteContext {
  context: AppContext;
  /** The base path of the entry point's webhooks. */
  base: string;
  tags: EntryPoint['tags'];
  /** An operationId: a verb, the entry point's name and a noun. */
  name(verb: string, noun: string): string;
  /** The endpoint checks' options: private addresses allowed or not, and now. */
  options(): { allowPrivate: boolean; now: Date };
}

/** Webhook endpoints, their delivery log, redelivery, test events and secret rotation (docs/webhooks.md). */
export function registerWebhookRoutes(app: App, context: AppContext): void {
  const { clock, config, webhooks } = context;
  // Events written by any write request are sent as soon as it has answered, not at the next poll.
  // The serving endpoints write none (a beacon's views reach the rollup at the next flush, a bid
  // request writes nothing): a wake per beacon or bid request was a query for due deliveries per
  // request. The serving fast path (docs/adr/0056) runs no hook, so it wakes nothing either.
  // Callback style: no promise per request.
  app.addHook('onResponse', (request, reply, done) => {
    const { routeOptions } = request;
    if (
      request.method !== 'GET' &&
      request.method !== 'HEAD' &&
      reply.statusCode < 400 &&
      routeOptions.config.serving !== true &&
      routeOptions.url?.startsWith('/api/serve/') !== true
    ) {
      webhooks.wake();
    }
    done();
  });

  for (const { prefix, operation, tags } of ENTRY_POINTS) {
    const routes: WebhookRouteContext = {
      context,
      base: `${prefix}/webhooks`,
      tags,
      name: (verb, noun) => `${verb}${capitalized(operation)}${noun}`,
      options: () => ({ allowPrivate: config.webhookAllowPrivate, now: new Date(clock.now()) }),
    };
    registerEndpointRoutes(app, routes);
    registerDeliveryRoutes(app, routes);
  }
}

/** An entry point's endpoints: list, create (the secret shown once), read, change, delete. */
function registerEndpointRoutes(app: App, { context, base, tags, name, options }: WebhookRouteContext): void {
  const { db } = context;
  app.get(
    base,
    {
      schema: {
        tags,
        operationId: name('list', 'Webhooks'),
        summary: 'Your webhook endpoints, oldest first.',
        querystring: PageQuery,
        response: { 200: Type.Array(EndpointSchema), ...errorResponses(401, 403) },
      },
    },
    async (request, reply) => {
      const accountId = accountOf(request);
      const rows = await listPage(request, reply, (limit, offset) => listEndpoints(db, accountId, limit, offset));
      return rows.map(toEndpoint);
    },
  );

  app.post(
    base,
    {
      schema: {
        tags,
        operationId: name('create', 'Webhook'),
        summary: 'Register an endpoint for events; the answer shows its signing secret, this once.',
        body: CreateEndpointBody,
        response: { 201: EndpointWithSecretSchema, ...errorResponses(401, 403, 422) },
      },
    },
    async (request, reply) => {
      const { endpoint, secret } = await createEndpoint(db, ownerOf(request), request.body, options());
      return created(request, reply, `${base}/${endpoint.id}`, { ...toEndpoint(endpoint), secret });
    },
  );

  app.get(
    `${base}/:id`,
    {
      schema: {
        tags,
        operationId: name('get', 'Webhook'),
        summary: 'One of your webhook endpoints.',
        params: IdParams,
        response: { 200: EndpointSchema, ...errorResponses(401, 403, 404) },
      },
    },
    async (request) => toEndpoint(await getEndpoint(db, accountOf(request), request.params.id)),
  );

  app.put(
    `${base}/:id`,
    {
      schema: {
        tags,
        operationId: name('change', 'Webhook'),
        summary: 'Change an endpoint: the fields given change, the others stay.',
        params: IdParams,
        body: ChangeEndpointBody,
        response: { 200: EndpointSchema, ...errorResponses(401, 403, 404, 422) },
      },
    },
    async (request) => toEndpoint(await changeEndpoint(db, ownerOf(request), request.params.id, request.body, options())),
  );

  app.delete(
    `${base}/:id`,
    {
      schema: {
        tags,
        operationId: name('delete', 'Webhook'),
        summary: 'Remove an endpoint with its pending deliveries and its delivery log.',
        params: IdParams,
        response: { 204: NoContent, ...errorResponses(401, 403, 404) },
      },
    },
    async (request, reply) => {
      await removeEndpoint(db, accountOf(request), request.params.id);
      reply.code(204);
    },
  );
}

/** An endpoint's secret rotation, test event, delivery log and redelivery. */
function registerDeliveryRoutes(app: App, { context, base, tags, name }: WebhookRouteContext): void {
  const { db, clock } = context;
  app.post(
    `${base}/:id/secret`,
    {
      schema: {
        tags,
        operationId: name('rotate', 'WebhookSecret'),
        summary: 'A new signing secret; the old one keeps signing beside it for the grace period (default 24 hours).',
        params: IdParams,
        body: Type.Optional(RotateSecretBody),
        response: { 200: EndpointWithSecretSchema, ...errorResponses(401, 403, 404, 422) },
      },
    },
    async (request) => {
      const grace = request.body?.graceSeconds ?? DEFAULT_GRACE_SECONDS;
      const { endpoint, secret } = await rotateSecret(db, accountOf(request), request.params.id, grace, new Date(clock.now()));
      return { ...toEndpoint(endpoint), secret };
    },
  );

  app.post(
    `${base}/:id/test`,
    {
      schema: {
        tags,
        operationId: name('test', 'Webhook'),
        summary: 'Send a webhook.test event to this endpoint (whatever it subscribed to); answers the queued delivery.',
        params: IdParams,
        response: { 202: DeliverySchema, ...errorResponses(401, 403, 404) },
      },
    },
    async (request, reply) => {
      const delivery = await queueTestEvent(db, accountOf(request), request.params.id, new Date(clock.now()));
      reply.code(202);
      return toDelivery(delivery);
    },
  );

  app.get(
    `${base}/:id/deliveries`,
    {
      schema: {
        tags,
        operationId: name('list', 'WebhookDeliveries'),
        summary: "The endpoint's deliveries, newest first.",
        params: IdParams,
        querystring: DeliveriesQuery,
        response: { 200: Type.Array(DeliverySchema), ...errorResponses(401, 403, 404, 422) },
      },
    },
    async (request, reply) => {
      const endpoint = await getEndpoint(db, accountOf(request), request.params.id);
      const rows = await listPage(request, reply, (limit, offset) =>
        listDeliveries(db, endpoint.id, request.query.status, limit, offset),
      );
      return rows.map(toDelivery);
    },
  );

  app.get(
    `${base}/:id/attempts`,
    {
      schema: {
        tags,
        operationId: name('list', 'WebhookAttempts'),
        summary: 'The delivery log: every attempt with its status, latency and the start of the answer, newest first.',
        params: IdParams,
        querystring: PageQuery,
        response: { 200: Type.Array(AttemptSchema), ...errorResponses(401, 403, 404) },
      },
    },
    async (request, reply) => {
      const endpoint = await getEndpoint(db, accountOf(request), request.params.id);
      const rows = await listPage(request, reply, (limit, offset) => listAttempts(db, endpoint.id, limit, offset));
      return rows.map(toAttempt);
    },
  );

  app.post(
    `${base}/:id/deliveries/:deliveryId/redeliver`,
    {
      schema: {
        tags,
        operationId: name('redeliver', 'Webhook'),
        summary: 'Deliver an event again now (same event id); a failed delivery gets one more attempt.',
        params: DeliveryParams,
        response: { 202: DeliverySchema, ...errorResponses(401, 403, 404, 422) },
      },
    },
    async (request, reply) => {
      const { id, deliveryId } = request.params;
      const delivery = await scheduleRedelivery(db, accountOf(request), id, deliveryId, new Date(clock.now()));
      reply.code(202);
      return toDelivery(delivery);
    },
  );
}
