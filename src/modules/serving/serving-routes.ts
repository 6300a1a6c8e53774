import { randomBytes } from 'node:crypto';
import { Type } from '@sinclair/typebox';
import type { FastifyReply } from 'fastify';
import type { AppContext } from '../../app-context.ts';
import { DomainError, notFound } from '../../errors.ts';
import { acceptPlainTextList } from '../../http/input.ts';
import { Id, Text } from '../../http/input-types.ts';
import type { App } from '../../http/routes.ts';
import { errorResponses, mediaAnswer } from '../../http/schemas.ts';
import { absoluteUrl } from '../../http/urls.ts';
import { GOALS } from '../statistics/index.ts';
import { ConsentQueryFields } from './consent/consent-query.ts';
import { minifiedLoaderScript } from './loader-script.ts';
import {
  BEACON_BODY_LIMIT,
  BlockParams,
  CLICK_LINK_RESPONSES,
  ClickIdField,
  ClickParams,
  CONVERSION_PIXEL_REFUSED,
  chooseTeasers,
  deadLinkWhenRefused,
  followTeaserClick,
  GoalNames,
  LABEL,
  MAX_TOKENS_PER_BEACON,
  PIXEL_RESPONSES,
  PixelQuery,
  readVisitorId,
  recordBeacon,
  recordConversionPixel,
  type ServingRouteContext,
  sendPixel,
  sendRefusedPixel,
  sendTeasersJson,
  servingRouteContext,
  startTeasersAnswer,
  TEASERS_RESPONSES,
  TeasersQuery,
  VIEWS_RESPONSES,
  VISITOR_COOKIE,
  ViewsBody,
} from './serving-answers.ts';
import { registerServingFastPath } from './serving-fast-path.ts';
import { teaserAnswer } from './teaser-answer.ts';
import { audienceExists } from './tracking/audiences.ts';
import { hashPostbackKey } from './tracking/postback-key.ts';

const VISITOR_COOKIE_MAX_AGE = 365 * 86_400;
const PUBLIC = { access: 'public' as const };
/** The serving path's answers: only the headers a cross-origin answer uses, no per-request log lines (src/http/conventions.ts). */
const SERVING = { ...PUBLIC, serving: true };
const tags = ['Serving'];

const ConversionQuery = Type.Object({
  click_id: ClickIdField,
  goal: GoalNames,
  key: Type.Optional(
    Text('The advertiser’s postback key (`POST /advertiser/postback-key`), unless it is sent as the `X-Postback-Key` header.', {
      maxLength: 128,
    }),
  ),
});

const ConversionResponse = Type.Object({
  result: Type.Union([Type.Literal('recorded'), Type.Literal('duplicate')], {
    description: '`recorded` the first time for this click and goal, `duplicate` afterwards (not counted again).',
  }),
});

const POSTBACK_KEY_HEADER = 'x-postback-key';

const AudienceQuery = Type.Object({
  advertiser: Id('Advertiser account id.'),
  ...ConsentQueryFields,
});

/**
 * The public serving endpoints: embed script, teasers, click redirect, conversions, audiences. The
 * teasers, click-link and beacon routes are also answered by the serving fast path
 * (serving-fast-path.ts, docs/adr/0056) for the requests it takes; these routes answer the rest
 * and document all of them.
 */
export function registerServingRoutes(app: App, context: AppContext): void {
  const routes = servingRouteContext(context);
  if (routes === undefined) return;
  registerTeaserRoutes(app, routes);
  registerClickRoute(app, routes);
  registerConversionRoutes(app, routes);
  registerAudienceRoute(app, routes);
  registerServingFastPath(app, routes);
}

/** The loader, a block's teasers and the viewability beacon. */
function registerTeaserRoutes(app: App, routes: ServingRouteContext): void {
  app.get(
    '/api/serve/loader.js',
    {
      config: PUBLIC,
      schema: {
        tags,
        operationId: 'getLoaderScript',
        summary: 'The embed script that renders teasers into `[data-nativa-block]` elements.',
        description: 'Behind a proxy (TRUST_PROXY), a request that did not arrive over HTTPS is refused with 403.',
        security: [],
        response: { 200: mediaAnswer('The embed script.', 'application/javascript', 'text'), ...errorResponses(403) },
      },
    },
    async (_request, reply) => {
      reply.header('Cache-Control', 'public, max-age=3600');
      reply.header('Access-Control-Allow-Origin', '*');
      reply.type('application/javascript; charset=utf-8');
      return minifiedLoaderScript();
    },
  );

  app.get(
    '/api/serve/blocks/:blockId/teasers',
    {
      config: SERVING,
      schema: {
        tags,
        operationId: 'serveTeasers',
        summary: 'Teasers for one impression of a block (counts them as served; views come from the beacon).',
        security: [],
        params: BlockParams,
        querystring: TeasersQuery,
        response: TEASERS_RESPONSES,
      },
    },
    async (request, reply) => {
      startTeasersAnswer(request, reply);
      const block = routes.serving.block(request.params.blockId);
      if (block === undefined) throw notFound('Block');
      const chosen = await chooseTeasers(routes, block, request);
      const base = absoluteUrl(request, '/api');
      if (request.format === 'json' && (request.query as { fields?: unknown }).fields === undefined) {
        // The schema's reply type only knows the object, hence the plain reply.
        sendTeasersJson(routes, reply as FastifyReply, block, base, chosen);
        return reply;
      }
      const { teasers, personalised } = chosen;
      return teaserAnswer(block.id, LABEL, routes.currency, base, teasers, personalised, block.designJson, block.wideImages);
    },
  );

  // The beacon's text/plain body (one token per line) is read in this scope only.
  app.register(async (scope: App) => {
    acceptPlainTextList(scope, 'tokens');
    scope.post(
      '/api/serve/views',
      {
        config: {
          ...SERVING,
          plainTextBody: `Impression tokens (the \`view\` of served teasers), one per line (commas or spaces separate them too), 1 to ${MAX_TOKENS_PER_BEACON}: what \`navigator.sendBeacon\` sends.`,
        },
        bodyLimit: BEACON_BODY_LIMIT,
        schema: {
          tags,
          operationId: 'recordViews',
          summary: "The loader's viewability beacon: counts one viewable view per impression token, once.",
          description:
            'Sent by `navigator.sendBeacon` with a `text/plain` body of tokens, one per line (a simple request: no CORS preflight); a JSON, form or XML body `{tokens: [...]}` works too. Always 204 for a well-formed body: forged, expired and already counted tokens, and beacons of robots, data-centre networks and automated browsers, count nothing (see `nativa_view_refusals_total`). Views reach the statistics within a second.',
          security: [],
          body: ViewsBody,
          response: VIEWS_RESPONSES,
        },
      },
      async (request, reply) => {
        await recordBeacon(routes, request, request.body.tokens, reply);
      },
    );
  });
}

/** A teaser's click link: verified, recorded, redirected. */
function registerClickRoute(app: App, routes: ServingRouteContext): void {
  app.get(
    '/api/serve/click/:token',
    {
      config: { ...SERVING, page: true },
      schema: {
        tags,
        operationId: 'followClick',
        summary: 'Follows a click link: records it durably, redirects (302) to the ad URL, and bills it once right after.',
        description:
          'A forged or unreadable link never redirects, nor does a link to an ad that moderation rejected (or never approved) or that was deleted: those get a small HTML page (404, no `Location`). A link leads to the URL moderation approved: while an edit of the ad waits for moderation, the approved one. An expired, repeated or robot link to any other ad redirects unbilled.',
        security: [],
        params: ClickParams,
        response: CLICK_LINK_RESPONSES,
      },
      errorHandler: deadLinkWhenRefused('click link refused'),
    },
    async (request, reply) => followTeaserClick(routes, request, request.params.token, reply, request.log),
  );
}

/** Conversions: the advertiser's postback and the pixel bound to the clicking browser. */
function registerConversionRoutes(app: App, routes: ServingRouteContext): void {
  const { serving } = routes;
  app.get(
    '/api/serve/conversion',
    {
      config: PUBLIC,
      schema: {
        tags,
        operationId: 'recordConversion',
        summary:
          "Server-to-server conversion postback, authenticated by the advertiser's postback key; counted once per click and goal.",
        description:
          'The key (`POST /advertiser/postback-key`) comes as the `X-Postback-Key` header or the `key` parameter; without it, or with another advertiser’s, 401 `postback_key_refused` and nothing is counted. A conversion counted here is authenticated (`authenticatedOrders` in statistics).',
        security: [],
        querystring: ConversionQuery,
        headers: Type.Object({
          'x-postback-key': Type.Optional(Text('The advertiser’s postback key (or the `key` parameter).', { maxLength: 128 })),
        }),
        response: { 200: ConversionResponse, ...errorResponses(401, 404, 422) },
      },
    },
    async (request, reply) => {
      reply.header('Cache-Control', 'no-store');
      const { query } = request;
      const header = request.headers[POSTBACK_KEY_HEADER];
      const key = typeof header === 'string' && header !== '' ? header : query.key;
      if (key === undefined || key === '') throw postbackKeyRefused();
      const result = await serving.recordConversion({
        clickId: query.click_id,
        goal: GOALS[query.goal],
        source: 'postback',
        keyHash: hashPostbackKey(key),
      });
      if (result === 'unknown') throw notFound('Click');
      if (result === 'refused') throw postbackKeyRefused();
      return { result };
    },
  );

  app.get(
    '/api/serve/pixel.gif',
    {
      config: SERVING,
      schema: {
        tags,
        operationId: 'recordConversionPixel',
        summary:
          'Conversion pixel (1×1 GIF, whatever happens): counted once per click and goal, only from the browser that followed the click link.',
        description:
          'The click redirect leaves a tag of the click in a cookie of Nativa’s domain (`nv_cv`, `SameSite=None; Secure`, 30 days); the pixel counts a conversion only when the browser sends that tag back, so a click id alone (readable from the click link) records nothing. Browsers that refuse third-party cookies count nothing here: use the postback. Pixel conversions are counted apart (`pixelOrders` in statistics).',
        security: [],
        querystring: PixelQuery,
        response: PIXEL_RESPONSES,
      },
      // A thank-you page shows whatever the pixel answers: a bad query is still a GIF (and logged).
      errorHandler: (error, request, reply) => sendRefusedPixel(reply, error, request.log, CONVERSION_PIXEL_REFUSED),
    },
    async (request, reply) => recordConversionPixel(routes, request, request.query, reply, request.log),
  );
}

/** The retargeting pixel. */
function registerAudienceRoute(app: App, { context, serving, decideConsent }: ServingRouteContext): void {
  app.get(
    '/api/serve/audience.gif',
    {
      config: PUBLIC,
      schema: {
        tags,
        operationId: 'addToAudience',
        summary: "Retargeting pixel: adds this browser (Nativa's visitor cookie) to the advertiser's audience.",
        description:
          'With Global Privacy Control (`Sec-GPC: 1`), or consent parameters (the IAB macros `gdpr`, `gdpr_consent`, `gpp`, `gpp_sid`) that do not grant TCF purposes 1, 3 and 4 or that carry a US opt-out, the pixel sets no cookie and adds no one.',
        security: [],
        querystring: AudienceQuery,
        response: {
          200: mediaAnswer('A transparent 1×1 GIF.', 'image/gif', 'bytes', {
            'Set-Cookie': { description: 'The visitor cookie (a year), set or renewed.' },
          }),
          ...errorResponses(422),
        },
      },
    },
    async (request, reply) => {
      const { advertiser } = request.query;
      // Without consent the pixel sets no cookie and adds no one (docs/privacy.md).
      if (!decideConsent(request)) {
        return sendPixel(reply);
      }
      let visitorId = readVisitorId(request.headers);
      if (visitorId === undefined) visitorId = randomBytes(16).toString('base64url');
      reply.header(
        'Set-Cookie',
        `${VISITOR_COOKIE}=${visitorId}; Max-Age=${VISITOR_COOKIE_MAX_AGE}; Path=/api/serve; Secure; HttpOnly; SameSite=None`,
      );
      if (await audienceExists(context.db, advertiser)) await serving.addToAudience(advertiser, visitorId);
      return sendPixel(reply);
    },
  );
}

const postbackKeyRefused = () =>
  new DomainError('postback_key_refused', 'This postback does not carry the postback key of the click’s advertiser.');
