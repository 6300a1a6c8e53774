import type { IncomingMessage } from 'node:http';
import type { FastifySchemaCompiler } from 'fastify';
import type { FastPath, FastRequest, FastRoute } from '../../../http/fast-path.ts';
import type { FastReply } from '../../../http/fast-reply.ts';
import { parseJsonBody } from '../../../http/input.ts';
import { boundInputSchema, coerceInput } from '../../../http/input-types.ts';
import { producedTypes } from '../../../http/openapi.ts';
import type { App } from '../../../http/routes.ts';
import { absoluteUrl } from '../../../http/urls.ts';
import { JSON_TYPE, type ServingRequest } from '../serving-answers.ts';
import {
  bodyText,
  type InputSchema,
  linkRoute,
  negotiatesJson,
  servingRequestOf,
  type Validate,
  valid,
  validQuery,
} from '../serving-fast-path.ts';
import {
  AUCTION_RESPONSES,
  answerAuction,
  answerNotice,
  answerViewPixel,
  BidClickParams,
  followBidClick,
  malformedBidRequest,
  NOTICE_RESPONSES,
  NoticeQuery,
  type OpenRtbContext,
  parseBidRequestText,
  sendRefusedViewPixel,
  VIEW_PIXEL_RESPONSES,
  ViewPixelQuery,
} from './openrtb-answers.ts';
import type { BidRequest } from './openrtb-auction.ts';
import { BidRequestSchema, BidResponseSchema } from './openrtb-schema.ts';

/*
 * The OpenRTB routes on the serving fast path (docs/adr/0056): the auction (a JSON or text/plain
 * JSON body of a stated length within the route's limit), its notices, a bid's click link and the
 * view pixel, answered before Fastify with the functions Fastify's routes call
 * (openrtb-answers.ts). A request the fast path could answer differently (XML, a query on the
 * auction, another body type, a body too large, chunked or encoded, a notice, pixel or link its
 * schema refuses, a proxy's refusal) goes to Fastify untouched, its body unread.
 */

const AUCTION_PATH = '/api/openrtb2/auction';
const NOTICE_PATH = '/api/openrtb2/notice';
const VIEW_PIXEL_PATH = '/api/serve/view.gif';
/** The bodies the auction's fast path reads: JSON, and the same JSON as header bidding's text/plain. */
const JSON_BODY = /^application\/json\s*(?:;\s*charset=utf-8\s*)?$/i;
const TEXT_BODY = /^text\/plain\s*(?:;\s*charset=utf-8\s*)?$/i;

const AUCTION_PRODUCES = producedTypes(AUCTION_RESPONSES);
const NOTICE_PRODUCES = producedTypes(NOTICE_RESPONSES);
const VIEW_PIXEL_PRODUCES = producedTypes(VIEW_PIXEL_RESPONSES);

/** The schemas as the conventions bound them when the routes were registered (input-types.ts). */
const BOUND = {
  bidRequest: boundInputSchema(BidRequestSchema) as InputSchema,
  noticeQuery: boundInputSchema(NoticeQuery) as InputSchema,
  bidClickParams: boundInputSchema(BidClickParams) as InputSchema,
  viewPixelQuery: boundInputSchema(ViewPixelQuery) as InputSchema,
};

interface Compiled {
  bidRequest: Validate;
  noticeQuery: Validate;
  bidClickParams: Validate;
  viewPixelQuery: Validate;
  /** The auction's 200 serializer, as Fastify compiles it from the route's response schema. */
  bidResponse: (payload: unknown) => string;
}

interface Shared {
  fastPath: FastPath;
  openrtb: OpenRtbContext;
  compiled: Compiled;
  publicUrl: string | undefined;
  /** The auction's body limit: the application's, which the route keeps. */
  bodyLimit: number;
  bodyMaxMembers: number;
}

/**
 * Adds the OpenRTB routes to the application's fast path once Fastify is ready: their schemas are
 * compiled then by Fastify's own validator and serializer compilers.
 */
export function registerOpenRtbFastPath(app: App, openrtb: OpenRtbContext, bodyMaxMembers: number): void {
  const fastPath = app.fastPath;
  if (fastPath === undefined) return;
  app.addHook('onReady', function compileOpenRtbFastRoutes(done) {
    const validate = this.validatorCompiler as FastifySchemaCompiler<unknown> | undefined;
    const serialize = this.serializerCompiler as
      | ((route: { schema: unknown; method: string; url: string; httpStatus: string }) => (payload: unknown) => string)
      | undefined;
    const bodyLimit = this.initialConfig.bodyLimit;
    if (validate !== undefined && serialize !== undefined && bodyLimit !== undefined) {
      const validator = (schema: unknown, method: string, url: string, httpPart: string) =>
        validate({ schema, method, url, httpPart }) as Validate;
      const compiled: Compiled = {
        bidRequest: validator(BOUND.bidRequest, 'POST', AUCTION_PATH, 'body'),
        noticeQuery: validator(BOUND.noticeQuery, 'GET', NOTICE_PATH, 'querystring'),
        bidClickParams: validator(BOUND.bidClickParams, 'GET', '/api/openrtb2/click/:token', 'params'),
        viewPixelQuery: validator(BOUND.viewPixelQuery, 'GET', VIEW_PIXEL_PATH, 'querystring'),
        bidResponse: serialize({ schema: BidResponseSchema, method: 'POST', url: AUCTION_PATH, httpStatus: '200' }),
      };
      const shared: Shared = { fastPath, openrtb, compiled, publicUrl: app.publicUrl, bodyLimit, bodyMaxMembers };
      fastPath.add(auctionRoute(shared));
      fastPath.add(noticeRoute(shared));
      fastPath.add(bidClickRoute(shared));
      fastPath.add(viewPixelRoute(shared));
    }
    done();
  });
}

function auctionRoute(shared: Shared): FastRoute {
  const { fastPath, publicUrl, bodyLimit } = shared;
  const digits = String(bodyLimit).length;
  return {
    method: 'POST',
    url: AUCTION_PATH,
    matches: (path) => path === AUCTION_PATH,
    take(request: FastRequest) {
      const { headers } = request;
      // A query's fields would be merged into the body (input.ts): Fastify's to answer.
      if (request.query !== '') return undefined;
      const type = headers['content-type'] ?? '';
      const json = JSON_BODY.test(type);
      if (!json && !TEXT_BODY.test(type)) return undefined;
      // Only a body of a stated length, as sent, that fits: Fastify answers the rest (413 among them) unread.
      const length = headers['content-length'];
      if (length === undefined || !/^\d+$/.test(length) || length.length > digits) return undefined;
      const bytes = Number(length);
      if (bytes === 0 || bytes > bodyLimit) return undefined;
      if (headers['transfer-encoding'] !== undefined || headers['content-encoding'] !== undefined) return undefined;
      if (!negotiatesJson(headers.accept, AUCTION_PRODUCES)) return undefined;
      const serving = servingRequestOf(fastPath, request.raw);
      if (serving === undefined) return undefined;
      // Behind a trusted proxy Fastify's host is X-Forwarded-Host: the markup's links are then Fastify's to write.
      if (publicUrl === undefined && fastPath.trustsProxy && headers['x-forwarded-host'] !== undefined) return undefined;
      const base = absoluteUrl({ host: headers.host ?? '', server: { publicUrl } }, '/api');
      return {
        format: 'json',
        navigation: false,
        answer: (reply: FastReply) => answerAuctionRequest(shared, request.raw, { json, base, serving }, reply),
      };
    },
  };
}

/**
 * Reads the bid request's body as Fastify's parsers read it, validates it with the route's schema,
 * and answers: the bid response, the 204 of no bid, or the 400 of a malformed request.
 */
async function answerAuctionRequest(
  { openrtb, compiled, bodyMaxMembers }: Shared,
  raw: IncomingMessage,
  { json, base, serving }: { json: boolean; base: string; serving: ServingRequest },
  reply: FastReply,
) {
  const text = await bodyText(raw);
  if (text === undefined) {
    // The client went away mid-body: no one to answer; counted as Fastify counts it.
    reply.code(400);
    return;
  }
  let parsed: object;
  try {
    // Decoded at once, as Fastify decodes it: bytes that are not UTF-8 become U+FFFD.
    parsed = json ? parseJsonBody(text, bodyMaxMembers) : parseBidRequestText(text);
  } catch (error) {
    // As Fastify answers a body its parser refuses: the connection closes after the error.
    reply.header('connection', 'close');
    throw error;
  }
  // As the conventions' preValidation step reads a body: JSON keeps its types, text is coerced.
  const body = coerceInput(BOUND.bidRequest, parsed, json ? 'json' : 'text');
  if (!valid(compiled.bidRequest, body)) throw malformedBidRequest(validationError(compiled.bidRequest.errors, 'body'));
  const answer = await answerAuction(openrtb, serving, body as BidRequest, base, reply);
  if (answer === undefined) return;
  reply.type(JSON_TYPE);
  reply.send(compiled.bidResponse(answer));
}

/** A schema's refusal as Fastify words it (its default schema error formatter). */
function validationError(errors: unknown, dataVar: string): Error {
  const list = (Array.isArray(errors) ? errors : []) as { instancePath?: string; message?: string }[];
  const message = list.map((error) => `${dataVar}${error.instancePath || ''} ${error.message}`).join(', ');
  return Object.assign(new Error(message), { statusCode: 400, validation: errors, validationContext: dataVar });
}

function noticeRoute({ fastPath, openrtb, compiled }: Shared): FastRoute {
  return {
    method: 'GET',
    url: NOTICE_PATH,
    matches: (path) => path === NOTICE_PATH,
    take(request: FastRequest) {
      if (!negotiatesJson(request.headers.accept, NOTICE_PRODUCES)) return undefined;
      const query = validQuery(request.query, BOUND.noticeQuery, compiled.noticeQuery);
      if (query === undefined || servingRequestOf(fastPath, request.raw) === undefined) return undefined;
      return {
        format: 'json',
        navigation: false,
        async answer(reply: FastReply) {
          await answerNotice(openrtb, query as Parameters<typeof answerNotice>[1], reply, fastPath.log);
          reply.send();
        },
      };
    },
  };
}

function bidClickRoute({ fastPath, openrtb, compiled }: Shared): FastRoute {
  return linkRoute(fastPath, '/api/openrtb2/click/', compiled.bidClickParams, (serving, token, reply) =>
    followBidClick(openrtb, serving, token, reply, fastPath.log),
  );
}

function viewPixelRoute({ fastPath, openrtb, compiled }: Shared): FastRoute {
  return {
    method: 'GET',
    url: VIEW_PIXEL_PATH,
    matches: (path) => path === VIEW_PIXEL_PATH,
    take(request: FastRequest) {
      if (!negotiatesJson(request.headers.accept, VIEW_PIXEL_PRODUCES)) return undefined;
      const query = validQuery(request.query, BOUND.viewPixelQuery, compiled.viewPixelQuery);
      if (query === undefined || servingRequestOf(fastPath, request.raw) === undefined) return undefined;
      const token = query.token as string;
      const userAgent = request.headers['user-agent'];
      return {
        format: 'json',
        navigation: false,
        async answer(reply: FastReply) {
          try {
            await answerViewPixel(openrtb, token, userAgent, reply);
          } catch (error) {
            // What the route's error handler answers: the GIF all the same.
            sendRefusedViewPixel(reply, error, fastPath.log);
          }
        },
      };
    },
  };
}
