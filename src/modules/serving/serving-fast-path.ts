import type { IncomingMessage } from 'node:http';
import type { FastifySchemaCompiler } from 'fastify';
import { sendServingFailure } from '../../http/conventions.ts';
import type { FastPath, FastRequest, FastRoute } from '../../http/fast-path.ts';
import type { FastReply } from '../../http/fast-reply.ts';
import { parseQueryString, plainTextList } from '../../http/input.ts';
import { boundInputSchema, coerceInput } from '../../http/input-types.ts';
import { negotiateFormat, type ResponseFormat } from '../../http/negotiation.ts';
import { producedTypes } from '../../http/openapi.ts';
import type { App } from '../../http/routes.ts';
import { absoluteUrl } from '../../http/urls.ts';
import {
  BEACON_BODY_LIMIT,
  BlockParams,
  CLICK_LINK_RESPONSES,
  ClickParams,
  CONVERSION_PIXEL_REFUSED,
  chooseTeasers,
  followTeaserClick,
  PIXEL_RESPONSES,
  PixelQuery,
  recordBeacon,
  recordConversionPixel,
  type ServingRequest,
  type ServingRouteContext,
  sendRefusedPixel,
  sendTeasersJson,
  startTeasersAnswer,
  TEASERS_RESPONSES,
  TeasersQuery,
  type TeasersRequest,
  VIEWS_RESPONSES,
  ViewsBody,
} from './serving-answers.ts';
import { MAX_TEASER_TOKEN_LENGTH } from './tracking/teaser-token.ts';

/*
 * The serving fast path's routes (docs/adr/0056): the common, successful requests of a publisher's
 * page — a block's teasers, a click link, the text/plain viewability beacon — answered before
 * Fastify with the functions Fastify's routes call (serving-answers.ts). A route takes a request
 * only when it can answer exactly as Fastify would; anything else (XML, `fields`, an input the
 * route's schema refuses, an unknown block, a proxy's refusal, a body it would not read the same
 * way) goes to Fastify untouched, so every error keeps its one implementation.
 */

const TEASERS_PATH = /^\/api\/serve\/blocks\/(\d{1,10})\/teasers$/;
const VIEWS_PATH = '/api/serve/views';
const PIXEL_PATH = '/api/serve/pixel.gif';
/** What `navigator.sendBeacon` sends with a string, and the plain type. */
const BEACON_TYPE = /^text\/plain\s*(?:;\s*charset=utf-8\s*)?$/i;

/** The media types each route's responses declare, which its negotiation weighs (conventions.ts). */
const TEASERS_PRODUCES = producedTypes(TEASERS_RESPONSES);
const CLICK_PRODUCES = producedTypes(CLICK_LINK_RESPONSES);
const VIEWS_PRODUCES = producedTypes(VIEWS_RESPONSES);
const PIXEL_PRODUCES = producedTypes(PIXEL_RESPONSES);

export type InputSchema = Parameters<typeof coerceInput>[0];

export type Validate = ((value: unknown) => unknown) & { errors?: unknown };

/** The compiled input schemas, from the compiler Fastify validated the same routes with. */
interface Validators {
  blockParams: Validate;
  teasersQuery: Validate;
  clickParams: Validate;
  viewsBody: Validate;
  pixelQuery: Validate;
}

/** The schemas as the conventions bound them when the routes were registered (input-types.ts). */
const BOUND = {
  blockParams: boundInputSchema(BlockParams) as InputSchema,
  teasersQuery: boundInputSchema(TeasersQuery) as InputSchema,
  clickParams: boundInputSchema(ClickParams) as InputSchema,
  viewsBody: boundInputSchema(ViewsBody) as InputSchema,
  pixelQuery: boundInputSchema(PixelQuery) as InputSchema,
};

/**
 * Adds the teasers, click-link and beacon routes to the application's fast path, once Fastify is
 * ready: their input schemas are compiled by Fastify's own validator compiler then.
 */
export function registerServingFastPath(app: App, routes: ServingRouteContext): void {
  const fastPath = app.fastPath;
  if (fastPath === undefined) return;
  app.addHook('onReady', function compileFastRoutes(done) {
    const compile = this.validatorCompiler as FastifySchemaCompiler<unknown> | undefined;
    if (compile !== undefined) {
      const validator = (schema: unknown, method: string, url: string, httpPart: string) =>
        compile({ schema, method, url, httpPart }) as Validate;
      const validators: Validators = {
        blockParams: validator(BOUND.blockParams, 'GET', '/api/serve/blocks/:blockId/teasers', 'params'),
        teasersQuery: validator(BOUND.teasersQuery, 'GET', '/api/serve/blocks/:blockId/teasers', 'querystring'),
        clickParams: validator(BOUND.clickParams, 'GET', '/api/serve/click/:token', 'params'),
        viewsBody: validator(BOUND.viewsBody, 'POST', VIEWS_PATH, 'body'),
        pixelQuery: validator(BOUND.pixelQuery, 'GET', PIXEL_PATH, 'querystring'),
      };
      const shared = { fastPath, routes, validators, publicUrl: app.publicUrl };
      fastPath.add(teasersRoute(shared));
      fastPath.add(clickRoute(shared));
      fastPath.add(beaconRoute(shared));
      fastPath.add(conversionPixelRoute(shared));
    }
    done();
  });
  app.addHook('preClose', (done) => {
    fastPath.close();
    done();
  });
}

interface Shared {
  fastPath: FastPath;
  routes: ServingRouteContext;
  validators: Validators;
  publicUrl: string | undefined;
}

/** The request as the shared answer functions read it, or undefined when Fastify should have it. */
export function servingRequestOf(fastPath: FastPath, raw: IncomingMessage): ServingRequest | undefined {
  if (fastPath.refusedByProxyRule(raw)) return undefined;
  const ip = fastPath.addressOf(raw);
  return ip === undefined ? undefined : { headers: raw.headers, ip };
}

/** Whether the request asks for JSON (or anything), as the conventions negotiate it. */
export function negotiatesJson(accept: string | undefined, produces?: readonly string[]): boolean {
  try {
    return negotiateFormat(accept, produces) === 'json';
  } catch {
    return false;
  }
}

/** Whether a validator accepts a value (ajv's compiled function answers true or false). */
export function valid(validate: Validate, value: unknown): boolean {
  return validate(value) === true;
}

/** A query the route's schema accepts, coerced as the conventions coerce it; undefined for Fastify. */
export function validQuery(text: string, schema: InputSchema, validate: Validate): Record<string, unknown> | undefined {
  if (text.includes('#')) return undefined;
  const query = parseQueryString(text);
  // `fields` is answered by the conventions' serializer step, on Fastify's path.
  if (query.fields !== undefined) return undefined;
  coerceInput(schema, query);
  return valid(validate, query) ? query : undefined;
}

function teasersRoute({ fastPath, routes, validators, publicUrl }: Shared): FastRoute {
  return {
    method: 'GET',
    url: '/api/serve/blocks/:blockId/teasers',
    matches: (path) => path.startsWith('/api/serve/blocks/'),
    take(request: FastRequest) {
      const blockText = TEASERS_PATH.exec(request.path)?.[1];
      if (blockText === undefined || request.query.includes('#')) return undefined;
      if (!negotiatesJson(request.headers.accept, TEASERS_PRODUCES)) return undefined;
      const params = { blockId: blockText };
      coerceInput(BOUND.blockParams, params);
      if (!valid(validators.blockParams, params)) return undefined;
      const query = parseQueryString(request.query);
      // `fields` is answered by the conventions' serializer step, on Fastify's path.
      if (query.fields !== undefined) return undefined;
      coerceInput(BOUND.teasersQuery, query);
      if (!valid(validators.teasersQuery, query)) return undefined;
      const block = routes.serving.block(params.blockId as unknown as number);
      if (block === undefined) return undefined;
      const serving = servingRequestOf(fastPath, request.raw);
      if (serving === undefined) return undefined;
      // Behind a trusted proxy Fastify's host is X-Forwarded-Host: the link base is then Fastify's to write.
      const forwardedHost = fastPath.trustsProxy && request.headers['x-forwarded-host'] !== undefined;
      if (publicUrl === undefined && forwardedHost) return undefined;
      const teasersRequest: TeasersRequest = { ...serving, query: query as TeasersRequest['query'] };
      const base = absoluteUrl({ host: request.headers.host ?? '', server: { publicUrl } }, '/api');
      return {
        format: 'json',
        navigation: false,
        async answer(reply: FastReply) {
          startTeasersAnswer(teasersRequest, reply);
          sendTeasersJson(routes, reply, block, base, await chooseTeasers(routes, block, teasersRequest));
        },
      };
    },
  };
}

function clickRoute({ fastPath, routes, validators }: Shared): FastRoute {
  return linkRoute(fastPath, '/api/serve/click/', validators.clickParams, (serving, token, reply) =>
    followTeaserClick(routes, serving, token, reply, fastPath.log),
  );
}

/**
 * A signed link a browser follows (a teaser's click link, a bid's): the token is the path's last
 * part, base64url within the route's bound and its schema; the answer is a redirect or the
 * dead-link page.
 */
export function linkRoute(
  fastPath: FastPath,
  prefix: string,
  validate: Validate,
  follow: (serving: ServingRequest, token: string, reply: FastReply) => Promise<unknown>,
): FastRoute {
  const pattern = new RegExp(`^${prefix}([A-Za-z0-9_-]{1,${MAX_TEASER_TOKEN_LENGTH}})$`);
  return {
    method: 'GET',
    url: `${prefix}:token`,
    matches: (path) => path.startsWith(prefix),
    take(request: FastRequest) {
      // A link's token as the loader or a bid's markup writes it: base64url, nothing to decode.
      const token = pattern.exec(request.path)?.[1];
      if (token === undefined || request.query.includes('#')) return undefined;
      if (!valid(validate, { token })) return undefined;
      const serving = servingRequestOf(fastPath, request.raw);
      if (serving === undefined) return undefined;
      // A page route: an Accept the API cannot answer is no error there (the reply keeps JSON's
      // defaults); one that prefers XML gets XML's type on its redirect, as from Fastify.
      let format: ResponseFormat = 'json';
      try {
        format = negotiateFormat(request.headers.accept, CLICK_PRODUCES);
      } catch {
        // As the conventions' hook does for a page route.
      }
      return {
        format,
        navigation: true,
        answer: async (reply: FastReply) => {
          await follow(serving, token, reply);
        },
      };
    },
  };
}

function beaconRoute(shared: Shared): FastRoute {
  const { fastPath } = shared;
  return {
    method: 'POST',
    url: VIEWS_PATH,
    matches: (path) => path === VIEWS_PATH,
    take(request: FastRequest) {
      const { headers } = request;
      if (request.query !== '' || !BEACON_TYPE.test(headers['content-type'] ?? '')) return undefined;
      // Only a body of a stated length, as sent, that fits: Fastify answers the rest (413 among them) unread.
      const length = headers['content-length'];
      if (length === undefined || !/^\d{1,5}$/.test(length) || Number(length) > BEACON_BODY_LIMIT) return undefined;
      if (headers['transfer-encoding'] !== undefined || headers['content-encoding'] !== undefined) return undefined;
      if (!negotiatesJson(headers.accept, VIEWS_PRODUCES)) return undefined;
      const serving = servingRequestOf(fastPath, request.raw);
      if (serving === undefined) return undefined;
      return {
        format: 'json',
        navigation: false,
        answer: (reply: FastReply) => answerBeacon(shared, request.raw, serving, reply),
      };
    },
  };
}

function conversionPixelRoute({ fastPath, routes, validators }: Shared): FastRoute {
  return {
    method: 'GET',
    url: PIXEL_PATH,
    matches: (path) => path === PIXEL_PATH,
    take(request: FastRequest) {
      if (!negotiatesJson(request.headers.accept, PIXEL_PRODUCES)) return undefined;
      const query = validQuery(request.query, BOUND.pixelQuery, validators.pixelQuery);
      if (query === undefined) return undefined;
      const serving = servingRequestOf(fastPath, request.raw);
      if (serving === undefined) return undefined;
      return {
        format: 'json',
        navigation: false,
        async answer(reply: FastReply) {
          try {
            await recordConversionPixel(routes, serving, query, reply, fastPath.log);
          } catch (error) {
            // What the route's error handler answers: the GIF all the same.
            sendRefusedPixel(reply, error, fastPath.log, CONVERSION_PIXEL_REFUSED);
          }
        },
      };
    },
  };
}

/** Reads the beacon's body and answers it: its views recorded (204), or the 422 of a bad token list. */
async function answerBeacon(
  { fastPath, routes, validators }: Shared,
  raw: IncomingMessage,
  serving: ServingRequest,
  reply: FastReply,
) {
  const text = await bodyText(raw);
  if (text === undefined) {
    // The client went away mid-body: no one to answer; counted as Fastify counts it.
    reply.code(400);
    return;
  }
  const body = coerceInput(BOUND.viewsBody, { tokens: plainTextList(text) }, 'text');
  if (!valid(validators.viewsBody, body)) {
    const error = Object.assign(new Error('body validation failed'), {
      validation: validators.viewsBody.errors,
      validationContext: 'body',
    });
    sendServingFailure(reply, error, fastPath.log, 'json');
    return;
  }
  await recordBeacon(routes, serving, (body as { tokens: string[] }).tokens, reply);
  reply.send();
}

/**
 * The request's body as UTF-8 text, decoded at once as Fastify decodes a string body; undefined
 * when the client went away before sending all of it.
 */
export function bodyText(raw: IncomingMessage): Promise<string | undefined> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    raw.on('data', (chunk: Buffer) => chunks.push(chunk));
    raw.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    raw.on('error', () => resolve(undefined));
    raw.on('close', () => {
      if (!raw.complete) resolve(undefined);
    });
  });
}
