import { Type } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../../../app-context.ts';
import { badRequest } from '../../../http/errors.ts';
import type { App } from '../../../http/routes.ts';
import { errorResponses, mediaAnswer } from '../../../http/schemas.ts';
import { absoluteUrl } from '../../../http/urls.ts';
import { PIXEL_GIF } from '../loader-script.ts';
import { VIEW_TOKEN_LENGTH } from '../tracking/view-token.ts';
import { bidFor } from './openrtb-auction.ts';
import { BidRequestSchema, BidResponseSchema } from './openrtb-schema.ts';

const PUBLIC = { access: 'public' as const };
const tags = ['Serving'];

const ViewPixelQuery = Type.Object({
  token: Type.String({
    minLength: 1,
    maxLength: VIEW_TOKEN_LENGTH * 2,
    description: 'The impression token of a served ad (what `/api/serve/views` takes).',
  }),
});

/**
 * Nativa in the ad-tech ecosystem (ADR 0041): an OpenRTB 2.6 endpoint for exchanges and header
 * bidding wrappers, and the view pixel its native markup fires.
 */
export function registerOpenRtbRoutes(app: App, context: AppContext): void {
  const { serving } = context;
  if (serving === undefined) return;
  const { currency } = context.config;

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
            '`site.publisher.id` is the Nativa publisher account, each `imp.tagid` one of its block ids; an unknown or foreign block gets no bid. The bid’s `price` is a CPM (bid per click × smoothed CTR × 1000, in the platform currency); billing stays per click: a win is not a charge. `adm` is the Native 1.2 response, with the signed click link and the view pixel. Honours `cur`, `badv`, `bcat` (any blocked category: no bid, Nativa’s categories are not IAB’s), `regs` (COPPA: no bid; GDPR or a CCPA opt-out: the device keys no frequency cap), `device.ua` and `device.ip`. A malformed request is a 400 with the reason.',
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
    '/api/serve/view.gif',
    {
      config: PUBLIC,
      schema: {
        tags,
        operationId: 'recordViewPixel',
        summary: 'View pixel (1×1 GIF, whatever happens): counts the viewable view of one impression token, once.',
        description:
          'What the native markup of `/api/openrtb2/auction` fires (its `imptrackers` and `eventtrackers`): the same token and rules as `/api/serve/views`.',
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
      await serving.recordViews([request.query.token], request.headers['user-agent']);
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
