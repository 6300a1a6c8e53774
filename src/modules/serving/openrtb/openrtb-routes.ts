import { Type } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../../../app-context.ts';
import { badRequest } from '../../../http/errors.ts';
import type { App } from '../../../http/routes.ts';
import { errorResponses, mediaAnswer, NoContent } from '../../../http/schemas.ts';
import { absoluteUrl } from '../../../http/urls.ts';
import { PIXEL_GIF } from '../loader-script.ts';
import { CLICK_LINK_RESPONSES, deadLinkWhenRefused, followClickLink, givtRequestOf } from '../serving-answers.ts';
import { MAX_TEASER_TOKEN_LENGTH } from '../tracking/teaser-token.ts';
import { VIEW_TOKEN_LENGTH } from '../tracking/view-token.ts';
import { NOTICE_EVENTS, OpenRtbBids } from './bid-notices.ts';
import { bidFor } from './openrtb-auction.ts';
import { BidRequestSchema, BidResponseSchema } from './openrtb-schema.ts';

const PUBLIC = { access: 'public' as const };
const tags = ['Serving'];

const ViewPixelQuery = Type.Object({
  token: Type.String({
    minLength: 1,
    maxLength: Math.max(VIEW_TOKEN_LENGTH * 2, MAX_TEASER_TOKEN_LENGTH),
    description: 'The impression token of a bid’s markup (or of a served ad, what `/api/serve/views` takes).',
  }),
});

const BidClickParams = Type.Object({
  token: Type.String({ minLength: 1, maxLength: MAX_TEASER_TOKEN_LENGTH, description: 'The bid’s signed click token.' }),
});

const NoticeQuery = Type.Object({
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

/**
 * Nativa in the ad-tech ecosystem (ADR 0041, 0044): an OpenRTB 2.6 endpoint for exchanges and
 * header bidding wrappers, the notices that count a bid served when it wins, and the click link and
 * view pixel its native markup carries.
 */
export function registerOpenRtbRoutes(app: App, context: AppContext): void {
  const { serving } = context;
  if (serving === undefined) return;
  const { currency } = context.config;
  const bids = new OpenRtbBids(serving, { db: context.db, clock: context.clock, timeZone: context.config.timeZone });

  app.register(async (scope: App) => {
    // Browsers' header bidding sends its JSON as text/plain (a simple request: no CORS preflight).
    scope.addContentTypeParser('text/plain', { parseAs: 'string' }, (_request, body, done) => {
      try {
        const parsed: unknown = JSON.parse(body as string);
        if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
          done(badRequest('The bid request must be a JSON object.'));
          return;
        }
        done(null, parsed);
      } catch {
        done(badRequest('The bid request is not valid JSON.'));
      }
    });
    scope.post(
      '/api/openrtb2/auction',
      {
        config: PUBLIC,
        schema: {
          tags,
          operationId: 'openRtbAuction',
          summary: 'OpenRTB 2.6 bid request with native impressions (Native 1.2): a bid per impression Nativa can fill, or 204.',
          description:
            '`site.publisher.id` is the Nativa publisher account, each `imp.tagid` one of its block ids; an unknown or foreign block gets no bid. The bid’s `price` is a CPM (bid per click × smoothed CTR × 1000, in the platform currency). Making a bid counts nothing: its `nurl` or `burl` (`/api/openrtb2/notice`) counts it served, once, and only then does its click bill (per click, at the campaign’s rules) and its view count. `adm` is the Native 1.2 response, with the bid’s click link and view pixel; `cat` the ad’s IAB Content Taxonomy 1.0 codes. Honours `cur`, `badv`, `bcat` and `acat` per ad (`cattax` 1; another taxonomy with a restriction: no bid), `regs` (COPPA: no bid; GDPR or a CCPA opt-out: the device keys no frequency cap), `device.ua` and `device.ip`. No native impression: `nbr` 501; a robot: `nbr` 3; any other no-bid: 204. A malformed request is a 400 with the reason.',
          security: [],
          body: BidRequestSchema,
          response: {
            200: BidResponseSchema,
            204: Type.Null({ description: 'No bid.' }),
            ...errorResponses(400, 413, 415),
          },
        },
        // OpenRTB's convention: a request that cannot be read is a 400 with the reason.
        errorHandler: (error, _request, _reply) => {
          if (error.validation === undefined) throw error;
          throw badRequest(`Malformed bid request: ${error.message}`);
        },
      },
      async (request, reply) => {
        allowCors(request, reply);
        reply.header('Cache-Control', 'no-store');
        reply.header('X-OpenRTB-Version', '2.6');
        const answer = await bidFor(serving, request.body, {
          bids,
          base: absoluteUrl(request, '/api'),
          currency,
          callerAddress: request.ip,
          callerUserAgent: request.headers['user-agent'],
        });
        if (answer === undefined) return (reply as FastifyReply).code(204).send();
        return answer;
      },
    );
  });

  app.get(
    '/api/openrtb2/notice',
    {
      config: PUBLIC,
      schema: {
        tags,
        operationId: 'openRtbNotice',
        summary: 'Win or billing notice of a bid (its `nurl` or `burl`): counts the bid served, once.',
        description:
          'A bid counts as served, and its click link bills and its view pixel counts, only once a notice says it won. The first notice (win or billing) records the win and the clearing price (`price`, never above the bid) and counts the bid served; every later one answers the same and counts nothing. The clearing price is a record, not a charge: Nativa bills the click at the campaign’s rules. A forged notice, a price that is not one or exceeds the bid: 400; a notice after the bid’s tokens expired (an hour): 410, the bid expired unserved.',
        security: [],
        querystring: NoticeQuery,
        response: { 204: NoContent, ...errorResponses(400, 410) },
      },
    },
    async (request, reply) => {
      reply.header('Cache-Control', 'no-store');
      reply.header('Access-Control-Allow-Origin', '*');
      const outcome = await bids.notice(request.query.token, request.query.event ?? 'win', request.query.price);
      request.log.debug({ outcome }, 'OpenRTB notice');
      reply.code(204);
      return null;
    },
  );

  app.get(
    '/api/openrtb2/click/:token',
    {
      config: { ...PUBLIC, page: true },
      schema: {
        tags,
        operationId: 'followBidClick',
        summary: 'Follows the click link of a bid’s markup: redirects (302) to the ad, billed once if the bid won.',
        description:
          'A won bid’s click is accepted and billed as a teaser’s (`/api/serve/click/{token}`). A bid no notice said won leads to the ad unbilled. A forged link, or one to an ad that moderation rejected or that was deleted, gets a small HTML page (404, no `Location`).',
        security: [],
        params: BidClickParams,
        response: CLICK_LINK_RESPONSES,
      },
      errorHandler: deadLinkWhenRefused('bid click link refused'),
    },
    async (request, reply) =>
      followClickLink(reply, await bids.follow(request.params.token, givtRequestOf(request), request.log)),
  );

  app.get(
    '/api/serve/view.gif',
    {
      config: PUBLIC,
      schema: {
        tags,
        operationId: 'recordViewPixel',
        summary: 'View pixel (1×1 GIF, whatever happens): counts the viewable view of one impression token, once.',
        description:
          'What the native markup of `/api/openrtb2/auction` fires (its `imptrackers` and `eventtrackers`), with the rules of `/api/serve/views`: a bid’s view counts once the bid has won; a view that comes before its win notice is counted when the notice arrives.',
        security: [],
        querystring: ViewPixelQuery,
        response: { 200: mediaAnswer('A transparent 1×1 GIF, also when the token is refused.', 'image/gif') },
      },
      // An ad shows whatever the pixel answers: a bad token is still a GIF (and counts nothing).
      errorHandler: (error, request, reply) => {
        request.log.info({ err: error }, 'view pixel refused');
        return sendPixel(reply);
      },
    },
    async (request, reply) => {
      await bids.view(request.query.token, request.headers['user-agent']);
      return sendPixel(reply);
    },
  );
}

function sendPixel(reply: FastifyReply) {
  reply.header('Cache-Control', 'no-store');
  reply.header('Access-Control-Allow-Origin', '*');
  reply.type('image/gif');
  return reply.send(PIXEL_GIF);
}

/** A page's header bidding calls from the browser: its origin is echoed, with credentials. */
function allowCors(request: FastifyRequest, reply: FastifyReply): void {
  const origin = request.headers.origin;
  if (typeof origin === 'string' && origin !== '' && origin !== 'null') {
    reply.header('Access-Control-Allow-Origin', origin);
    reply.header('Access-Control-Allow-Credentials', 'true');
    reply.header('Vary', 'Accept, Origin');
  } else {
    reply.header('Access-Control-Allow-Origin', '*');
  }
}
