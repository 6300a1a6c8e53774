import type { FastifyReply } from 'fastify';
import type { AppContext } from '../../../app-context.ts';
import type { App } from '../../../http/routes.ts';
import { absoluteUrl } from '../../../http/urls.ts';
import { CLICK_LINK_RESPONSES, deadLinkWhenRefused } from '../serving-answers.ts';
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
  openRtbContext,
  parseBidRequestText,
  sendRefusedViewPixel,
  VIEW_PIXEL_RESPONSES,
  ViewPixelQuery,
} from './openrtb-answers.ts';
import { registerOpenRtbFastPath } from './openrtb-fast-path.ts';
import { BidRequestSchema } from './openrtb-schema.ts';

/*
 * Serving routes (`config.serving`, docs/adr/0037): what exchanges, header bidding and the ad's
 * markup call carries only the headers it uses and is counted, not logged one by one; the serving
 * fast path answers their common requests before Fastify with the same functions
 * (openrtb-answers.ts, openrtb-fast-path.ts, docs/adr/0056).
 */
const SERVING = { access: 'public' as const, serving: true };
const tags = ['Serving'];

/**
 * Nativa in the ad-tech ecosystem (ADR 0041, 0044): an OpenRTB 2.6 endpoint for exchanges and
 * header bidding wrappers, the notices that count a bid served when it wins, and the click link and
 * view pixel its native markup carries.
 */
export function registerOpenRtbRoutes(app: App, context: AppContext): void {
  const openrtb = openRtbContext(context);
  if (openrtb === undefined) return;

  app.register(async (scope: App) => {
    // Browsers' header bidding sends its JSON as text/plain (a simple request: no CORS preflight).
    scope.addContentTypeParser('text/plain', { parseAs: 'string' }, (_request, body, done) => {
      try {
        done(null, parseBidRequestText(body as string));
      } catch (error) {
        done(error as Error);
      }
    });
    scope.post(
      '/api/openrtb2/auction',
      {
        config: SERVING,
        schema: {
          tags,
          operationId: 'openRtbAuction',
          summary: 'OpenRTB 2.6 bid request with native impressions (Native 1.2): a bid per impression Nativa can fill, or 204.',
          description:
            '`site.publisher.id` is the Nativa publisher account, each `imp.tagid` one of its block ids; an unknown or foreign block gets no bid. The bid’s `price` is a CPM (bid per click × smoothed CTR × 1000, in the platform currency). Making a bid counts nothing: its `nurl` or `burl` (`/api/openrtb2/notice`) counts it served, once, and only then does its click bill (per click, at the campaign’s rules) and its view count. `adm` is the Native 1.2 response, with the bid’s click link and view pixel; `cat` the ad’s IAB Content Taxonomy 1.0 codes. Honours `cur`, `badv`, `bcat` and `acat` per ad (`cattax` 1; another taxonomy with a restriction: no bid), `regs` (COPPA: no bid; GDPR or a CCPA opt-out: the device keys no frequency cap), `device.ua` and `device.ip`. No native impression: `nbr` 501; a robot: `nbr` 3; any other no-bid: 204. A malformed request is a 400 with the reason.',
          security: [],
          body: BidRequestSchema,
          response: AUCTION_RESPONSES,
        },
        // OpenRTB's convention: a request that cannot be read is a 400 with the reason.
        errorHandler: (error, _request, _reply) => {
          if (error.validation === undefined) throw error;
          throw malformedBidRequest(error);
        },
      },
      async (request, reply) => {
        const answer = await answerAuction(openrtb, request, request.body, absoluteUrl(request, '/api'), reply);
        return answer ?? reply;
      },
    );
  });

  app.get(
    '/api/openrtb2/notice',
    {
      config: SERVING,
      schema: {
        tags,
        operationId: 'openRtbNotice',
        summary: 'Win or billing notice of a bid (its `nurl` or `burl`): counts the bid served, once.',
        description:
          'A bid counts as served, and its click link bills and its view pixel counts, only once a notice says it won. The first notice (win or billing) records the win and the clearing price (`price`, never above the bid) and counts the bid served; every later one answers the same and counts nothing. The clearing price is a record, not a charge: Nativa bills the click at the campaign’s rules. A forged notice, a price that is not one or exceeds the bid: 400; a notice after the bid’s tokens expired (an hour): 410, the bid expired unserved.',
        security: [],
        querystring: NoticeQuery,
        response: NOTICE_RESPONSES,
      },
    },
    async (request, reply) => {
      await answerNotice(openrtb, request.query, reply, request.log);
      return null;
    },
  );

  app.get(
    '/api/openrtb2/click/:token',
    {
      config: { ...SERVING, page: true },
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
    async (request, reply) => followBidClick(openrtb, request, request.params.token, reply, request.log),
  );

  app.get(
    '/api/serve/view.gif',
    {
      config: SERVING,
      schema: {
        tags,
        operationId: 'recordViewPixel',
        summary: 'View pixel (1×1 GIF, whatever happens): counts the viewable view of one impression token, once.',
        description:
          'What the native markup of `/api/openrtb2/auction` fires (its `imptrackers` and `eventtrackers`), with the rules of `/api/serve/views`: a bid’s view counts once the bid has won; a view that comes before its win notice is counted when the notice arrives.',
        security: [],
        querystring: ViewPixelQuery,
        response: VIEW_PIXEL_RESPONSES,
      },
      // An ad shows whatever the pixel answers: a bad token is still a GIF (and counts nothing).
      errorHandler: (error, request, reply) => sendRefusedViewPixel(reply as FastifyReply, error, request.log),
    },
    async (request, reply) => answerViewPixel(openrtb, request.query.token, request.headers['user-agent'], reply),
  );

  registerOpenRtbFastPath(app, openrtb, context.config.bodyMaxMembers);
}
