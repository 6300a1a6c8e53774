import { Type } from '@sinclair/typebox';
import type { FastifyBaseLogger } from 'fastify';
import type { AppContext } from '../../../app-context.ts';
import { badRequest, type DomainError } from '../../../http/errors.ts';
import type { AnswerReply } from '../../../http/fast-reply.ts';
import { errorResponses, mediaAnswer, NoContent } from '../../../http/schemas.ts';
import {
  allowCors,
  followClickLink,
  givtRequestOf,
  type ServingRequest,
  sendPixel,
  sendRefusedPixel,
} from '../serving-answers.ts';
import type { ClickLog, ServingEngine } from '../serving-engine.ts';
import { MAX_TEASER_TOKEN_LENGTH } from '../tracking/teaser-token.ts';
import { VIEW_TOKEN_LENGTH } from '../tracking/view-token.ts';
import { NOTICE_EVENTS, type NoticeEvent, OpenRtbBids } from './bid-notices.ts';
import { type BidRequest, type BidResponse, bidFor } from './openrtb-auction.ts';
import { BidResponseSchema } from './openrtb-schema.ts';

/*
 * What the OpenRTB endpoint, its notices, the bid's click link and the view pixel answer, written
 * once for both paths that answer them: Fastify's routes (openrtb-routes.ts) and the serving fast
 * path (openrtb-fast-path.ts, docs/adr/0056). A request is anything with headers and an address,
 * a reply anything a serving answer can be written to (serving-answers.ts).
 */

export const ViewPixelQuery = Type.Object({
  token: Type.String({
    minLength: 1,
    maxLength: Math.max(VIEW_TOKEN_LENGTH * 2, MAX_TEASER_TOKEN_LENGTH),
    description: 'The impression token of a bid’s markup (or of a served ad, what `/api/serve/views` takes).',
  }),
});

export const BidClickParams = Type.Object({
  token: Type.String({ minLength: 1, maxLength: MAX_TEASER_TOKEN_LENGTH, description: 'The bid’s signed click token.' }),
});

export const NoticeQuery = Type.Object({
  // In the query, not the path: with the bid's price and MAC it is longer than a path parameter may be.
  token: Type.String({
    minLength: 1,
    maxLength: MAX_TEASER_TOKEN_LENGTH + 40,
    description: 'The bid’s signed notice token (its click token, its CPM in micros, their MAC), as `nurl` and `burl` carry it.',
  }),
  event: Type.Optional(
    Type.Union(
      NOTICE_EVENTS.map((event) => Type.Literal(event)),
      { description: 'Which notice: `win` (`nurl`, the default) or `billing` (`burl`). Either counts the bid served, once.' },
    ),
  ),
  price: Type.Optional(
    Type.String({
      maxLength: 64,
      description: `The clearing price (\`\${AUCTION_PRICE}\`), a CPM in the bid’s currency: recorded, never above the bid, never charged. Empty or left unreplaced: none given.`,
    }),
  ),
});

export const AUCTION_RESPONSES = {
  200: BidResponseSchema,
  204: Type.Null({ description: 'No bid.' }),
  ...errorResponses(400, 413, 415),
};

export const NOTICE_RESPONSES = { 204: NoContent, ...errorResponses(400, 410) };

export const VIEW_PIXEL_RESPONSES = {
  200: mediaAnswer('A transparent 1×1 GIF, also when the token is refused.', 'image/gif'),
};

/** What the OpenRTB answers share, on both paths: the engine, the bids' tokens and notices, the currency. */
export interface OpenRtbContext {
  serving: ServingEngine;
  bids: OpenRtbBids;
  currency: string;
}

/** The OpenRTB answers' shared state, made once per app; undefined when the app serves nothing. */
export function openRtbContext(context: AppContext): OpenRtbContext | undefined {
  const { serving } = context;
  if (serving === undefined) return undefined;
  const bids = new OpenRtbBids(serving, { db: context.db, clock: context.clock, timeZone: context.config.timeZone });
  return { serving, bids, currency: context.config.currency };
}

/**
 * A bid request sent as text/plain (browsers' header bidding: a simple request, no CORS
 * preflight): its JSON object, or the 400 saying why there is none.
 */
export function parseBidRequestText(text: string): object {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw badRequest('The bid request is not valid JSON.');
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw badRequest('The bid request must be a JSON object.');
  }
  return parsed;
}

/** OpenRTB's convention: a request its schema refuses is a 400 with the reason. */
export function malformedBidRequest(error: Error): DomainError {
  return badRequest(`Malformed bid request: ${error.message}`);
}

/** The auction's answer to a valid bid request: its headers set, then the bid response, or a 204 sent (undefined). */
export async function answerAuction(
  { serving, bids, currency }: OpenRtbContext,
  request: ServingRequest,
  body: BidRequest,
  base: string,
  reply: AnswerReply,
): Promise<BidResponse | undefined> {
  allowCors(request.headers.origin, reply);
  reply.header('Cache-Control', 'no-store');
  reply.header('X-OpenRTB-Version', '2.6');
  const answer = await bidFor(serving, body, {
    bids,
    base,
    currency,
    callerAddress: request.ip,
    callerUserAgent: request.headers['user-agent'],
  });
  if (answer === undefined) {
    reply.code(204);
    reply.send();
  }
  return answer;
}

/** A win or billing notice taken (or refused by the error it throws); the answer is a 204, sent by the caller. */
export async function answerNotice(
  { bids }: OpenRtbContext,
  query: { token: string; event?: NoticeEvent | undefined; price?: string | undefined },
  reply: AnswerReply,
  log: Pick<ClickLog, 'debug'>,
): Promise<void> {
  reply.header('Cache-Control', 'no-store');
  reply.header('Access-Control-Allow-Origin', '*');
  const outcome = await bids.notice(query.token, query.event ?? 'win', query.price);
  log.debug({ outcome }, 'OpenRTB notice');
  reply.code(204);
}

/** A bid's click link followed: to the ad, or the dead-link page. */
export async function followBidClick<Reply extends AnswerReply>(
  { bids }: OpenRtbContext,
  request: ServingRequest,
  token: string,
  reply: Reply,
  log: ClickLog,
): Promise<Reply> {
  return followClickLink(reply, await bids.follow(token, givtRequestOf(request), log));
}

/** The view pixel: the token's view counted (or not), and the GIF whatever happened. */
export async function answerViewPixel<Reply extends AnswerReply>(
  { bids }: OpenRtbContext,
  token: string,
  userAgent: string | undefined,
  reply: Reply,
): Promise<Reply> {
  await bids.view(token, userAgent);
  return sendPixel(reply);
}

/** A view pixel whose request failed: logged, and the GIF all the same. */
export function sendRefusedViewPixel<Reply extends AnswerReply>(
  reply: Reply,
  error: unknown,
  log: Pick<FastifyBaseLogger, 'info'>,
): Reply {
  return sendRefusedPixel(reply, error, log, 'view pixel refused');
}
