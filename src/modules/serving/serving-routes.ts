import { randomBytes } from 'node:crypto';
import { Type } from '@sinclair/typebox';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../../app-context.ts';
import { DomainError, notFound } from '../../errors.ts';
import { sendHtmlPage } from '../../http/html-page.ts';
import { acceptPlainTextList } from '../../http/input.ts';
import { Id, Text } from '../../http/input-types.ts';
import type { App } from '../../http/routes.ts';
import { errorResponses, mediaAnswer, NoContent } from '../../http/schemas.ts';
import { absoluteUrl } from '../../http/urls.ts';
import { GOALS } from '../statistics/vocabulary.ts';
import { ConsentDecider, type ConsentQuery, consentSignals } from './consent/consent.ts';
import { ConsentQueryFields } from './consent/consent-query.ts';
import { minifiedLoaderScript, PIXEL_GIF } from './loader-script.ts';
import { TeaserAnswerWriter, TeasersAnswerSchema, teaserAnswer } from './teaser-answer.ts';
import { audienceExists } from './tracking/audiences.ts';
import { ConversionTagger, conversionCookie, conversionTags, withTag } from './tracking/conversion-cookie.ts';
import type { GivtRequest } from './tracking/invalid-traffic.ts';
import { hashPostbackKey } from './tracking/postback-key.ts';
import { MAX_TEASER_TOKEN_LENGTH } from './tracking/teaser-token.ts';
import { countryOf, visitorTraits } from './tracking/visitor.ts';
import { LOADER_ID_PATTERN } from './tracking/visitor-id.ts';

const VISITOR_COOKIE = 'nv_vid';
const VISITOR_COOKIE_MAX_AGE = 365 * 86_400;
const PUBLIC = { access: 'public' as const };
/** The serving path's answers: only the headers a cross-origin answer uses, no per-request log lines (src/http/conventions.ts). */
const SERVING = { ...PUBLIC, serving: true };
const tags = ['Serving'];
const LABEL = 'Sponsored';
const JSON_TYPE = 'application/json; charset=utf-8';

const BlockParams = Type.Object({
  blockId: Id('Block id (from the embed code).'),
});

const TeasersQuery = Type.Object({
  page: Type.Optional(
    Type.String({
      pattern: LOADER_ID_PATTERN,
      description:
        'Page view id (16–64 URL-safe characters) the loader gives every block of one page view: no ad shows twice under one id, nor, on a block with `noCampaignRepeats`, a campaign.',
    }),
  ),
  visitor: Type.Optional(
    Type.String({
      pattern: LOADER_ID_PATTERN,
      description:
        "Visitor id (16–64 URL-safe characters) the loader keeps in the site's localStorage, for frequency caps; without it (and without Nativa's cookie) the visitor is a daily keyed hash of address and User-Agent. Ignored when the impression is not personalised.",
    }),
  ),
  ...ConsentQueryFields,
});

const ClickParams = Type.Object({
  token: Text('The signed click token.', { maxLength: MAX_TEASER_TOKEN_LENGTH }),
});

const GoalNames = Type.Union(
  (Object.keys(GOALS) as (keyof typeof GOALS)[]).map((goal) => Type.Literal(goal)),
  { description: 'Goal type: purchase, registration or intermediate.' },
);

const ClickIdField = Text('The click id the ad URL received through `{click_id}`.', { minLength: 1, maxLength: 64 });

const ConversionQuery = Type.Object({
  click_id: ClickIdField,
  goal: GoalNames,
  key: Type.Optional(
    Text('The advertiser’s postback key (`POST /advertiser/postback-key`), unless it is sent as the `X-Postback-Key` header.', {
      maxLength: 128,
    }),
  ),
});

/** The pixel answers its GIF to anything (a thank-you page shows it whatever happens): every field is optional. */
const PixelQuery = Type.Object({
  click_id: Type.Optional(ClickIdField),
  goal: Type.Optional(GoalNames),
});

const ConversionResponse = Type.Object({
  result: Type.Union([Type.Literal('recorded'), Type.Literal('duplicate')], {
    description: '`recorded` the first time for this click and goal, `duplicate` afterwards (not counted again).',
  }),
});

const POSTBACK_KEY_HEADER = 'x-postback-key';

/** How many impression tokens one beacon may carry: a page's teasers, with room to spare. */
const MAX_TOKENS_PER_BEACON = 100;

const ViewsBody = Type.Object(
  {
    tokens: Type.Array(
      Text('An impression token (the `view` of a served teaser).', { minLength: 1, maxLength: MAX_TEASER_TOKEN_LENGTH }),
      {
        minItems: 1,
        maxItems: MAX_TOKENS_PER_BEACON,
        description: `The impression tokens of the teasers that became viewable (1 to ${MAX_TOKENS_PER_BEACON}).`,
      },
    ),
  },
  { additionalProperties: false },
);

const AudienceQuery = Type.Object({
  advertiser: Id('Advertiser account id.'),
  ...ConsentQueryFields,
});

/** What the serving routes share: the engine, consent, the answer writer, the pixel's tags. */
interface ServingRouteContext {
  context: AppContext;
  serving: NonNullable<AppContext['serving']>;
  currency: string;
  /** Whether the request's consent signals allow personal data; unreadable ones are counted. */
  decideConsent(request: { query: ConsentQuery; headers: FastifyRequest['headers'] }): boolean;
  answers: TeaserAnswerWriter;
  pixelTags: ConversionTagger;
  /** Leaves the click's tag for the conversion pixel in the browser that follows a genuine, fresh link. */
  tagClickForPixel(cookieHeader: string | undefined, reply: FastifyReply, clickId: string): void;
}

/** The public serving endpoints: embed script, teasers, click redirect, conversions, audiences. */
export function registerServingRoutes(app: App, context: AppContext): void {
  const { serving } = context;
  if (serving === undefined) return;
  const { currency } = context.config;
  const consent = new ConsentDecider({ vendorId: context.config.tcfVendorId });
  /** Whether the request's consent signals allow personal data; unreadable ones are counted. */
  const decideConsent = (request: { query: ConsentQuery; headers: FastifyRequest['headers'] }): boolean => {
    const verdict = consent.decide(consentSignals(request.query, request.headers['sec-gpc']));
    if (!verdict.personalised && verdict.unreadable !== undefined) serving.tally.consentUnreadable[verdict.unreadable] += 1;
    return verdict.personalised;
  };
  const answers = new TeaserAnswerWriter(currency);
  const pixelTags = new ConversionTagger(serving.keyFor('conversion-pixel'));
  /** Leaves the click's tag for the conversion pixel in the browser that follows a genuine, fresh link. */
  const tagClickForPixel = (cookieHeader: string | undefined, reply: FastifyReply, clickId: string): void => {
    const tags = conversionTags(cookieHeader);
    reply.header('Set-Cookie', conversionCookie(withTag(tags, pixelTags.tagOf(clickId))));
  };
  const routes: ServingRouteContext = { context, serving, currency, decideConsent, answers, pixelTags, tagClickForPixel };
  registerTeaserRoutes(app, routes);
  registerClickRoute(app, routes);
  registerConversionRoutes(app, routes);
  registerAudienceRoute(app, routes);
}

/** The loader, a block's teasers and the viewability beacon. */
function registerTeaserRoutes(app: App, { serving, currency, decideConsent, answers }: ServingRouteContext): void {
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
        response: { 200: TeasersAnswerSchema, ...errorResponses(404, 422) },
      },
    },
    async (request, reply) => {
      allowCors(request, reply);
      reply.header('Cache-Control', 'no-store');
      const block = serving.block(request.params.blockId);
      if (block === undefined) throw notFound('Block');
      const userAgent = request.headers['user-agent'];
      const traits = visitorTraits(userAgent);
      const { page, visitor } = request.query;
      // Without consent (docs/privacy.md) no visitor id is read: not the cookie, not the loader's.
      const personalised = !block.neverPersonalise && decideConsent(request);
      const cookieId = personalised ? readVisitorId(request) : undefined;
      // Read once: behind a trusted proxy each read of request.ip parses X-Forwarded-For again.
      const address = request.ip;
      // General invalid traffic gets no teasers (docs/invalid-traffic.md): nothing served, nothing to click.
      const invalid = serving.judgeTeasersRequest(givtRequestOf(request, address), block.siteHosts);
      const teasers =
        invalid !== null
          ? []
          : await serving.serve(
              {
                block,
                device: traits.device,
                agent: traits.agent,
                country: countryOf(address),
                visitorId: cookieId,
                asn: serving.asnOf(address),
              },
              { pageId: page, cookieId, loaderId: personalised ? visitor : undefined, address, userAgent, personalised },
            );
      const base = absoluteUrl(request, '/api');
      if (request.format === 'json' && (request.query as { fields?: unknown }).fields === undefined) {
        // Sent as text, the answer skips the serializer (and `fields`, which it was not asked for);
        // the schema's reply type only knows the object, hence the plain reply.
        return (reply as FastifyReply)
          .type(JSON_TYPE)
          .send(answers.write(block.id, LABEL, base, teasers, personalised, block.designJson, block.wideImages));
      }
      return teaserAnswer(block.id, LABEL, currency, base, teasers, personalised, block.designJson, block.wideImages);
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
        bodyLimit: 16 * 1024,
        schema: {
          tags,
          operationId: 'recordViews',
          summary: "The loader's viewability beacon: counts one viewable view per impression token, once.",
          description:
            'Sent by `navigator.sendBeacon` with a `text/plain` body of tokens, one per line (a simple request: no CORS preflight); a JSON, form or XML body `{tokens: [...]}` works too. Always 204 for a well-formed body: forged, expired and already counted tokens, and beacons of robots, data-centre networks and automated browsers, count nothing (see `nativa_view_refusals_total`). Views reach the statistics within a second.',
          security: [],
          body: ViewsBody,
          response: { 204: NoContent, ...errorResponses(413, 415, 422) },
        },
      },
      async (request, reply) => {
        reply.header('Access-Control-Allow-Origin', '*');
        const { tokens } = request.body;
        if (!serving.refusesViewBeacon(givtRequestOf(request), tokens.length)) {
          await serving.recordViews(tokens, request.headers['user-agent']);
        }
        reply.code(204);
      },
    );
  });
}

/** A teaser's click link: verified, recorded, redirected. */
function registerClickRoute(app: App, { serving, tagClickForPixel }: ServingRouteContext): void {
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
    async (request, reply) => {
      const { token } = request.params;
      const redirect = await serving.redirect(token, givtRequestOf(request), request.log);
      if (redirect?.freshClickId !== undefined) tagClickForPixel(request.headers.cookie, reply, redirect.freshClickId);
      return followClickLink(reply, redirect?.location);
    },
  );
}

/** Conversions: the advertiser's postback and the pixel bound to the clicking browser. */
function registerConversionRoutes(app: App, { serving, pixelTags }: ServingRouteContext): void {
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
      config: PUBLIC,
      schema: {
        tags,
        operationId: 'recordConversionPixel',
        summary:
          'Conversion pixel (1×1 GIF, whatever happens): counted once per click and goal, only from the browser that followed the click link.',
        description:
          'The click redirect leaves a tag of the click in a cookie of Nativa’s domain (`nv_cv`, `SameSite=None; Secure`, 30 days); the pixel counts a conversion only when the browser sends that tag back, so a click id alone (readable from the click link) records nothing. Browsers that refuse third-party cookies count nothing here: use the postback. Pixel conversions are counted apart (`pixelOrders` in statistics).',
        security: [],
        querystring: PixelQuery,
        response: {
          200: mediaAnswer('A transparent 1×1 GIF, also when the query is invalid or nothing is counted.', 'image/gif'),
        },
      },
      // A thank-you page shows whatever the pixel answers: a bad query is still a GIF (and logged).
      errorHandler: (error, request, reply) => {
        request.log.info({ err: error }, 'conversion pixel refused');
        sendPixel(reply);
      },
    },
    async (request, reply) => {
      const { click_id: clickId, goal } = request.query;
      if (clickId !== undefined && goal !== undefined) {
        if (conversionTags(request.headers.cookie).includes(pixelTags.tagOf(clickId))) {
          await serving.recordConversion({ clickId, goal: GOALS[goal], source: 'pixel' });
        } else request.log.info({ clickId }, 'conversion pixel without the tag of its click');
      }
      return sendPixel(reply);
    },
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
      let visitorId = readVisitorId(request);
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

/**
 * Any page may embed a block. Browsers get their origin echoed with credentials allowed, so the
 * visitor cookie (retargeting) travels with the request; other clients get `*`.
 */
function allowCors(request: FastifyRequest, reply: FastifyReply): void {
  const origin = request.headers.origin;
  if (typeof origin === 'string' && origin !== '' && origin !== 'null') {
    reply.header('Access-Control-Allow-Origin', origin);
    reply.header('Access-Control-Allow-Credentials', 'true');
    // No `Vary: Origin`: the answer is no-store, so no cache holds it for another origin.
  } else {
    reply.header('Access-Control-Allow-Origin', '*');
  }
}

/**
 * What the rules of general invalid traffic read of a request: User-Agent, client hints, the
 * speculative-fetch headers, the address, and the page (`Origin`, else `Referer`).
 */
export function givtRequestOf(request: FastifyRequest, address: string = request.ip): GivtRequest {
  const { headers } = request;
  const origin = headers.origin;
  const page = typeof origin === 'string' && origin !== '' && origin !== 'null' ? origin : headers.referer;
  return {
    userAgent: headers['user-agent'],
    clientHints: headers['sec-ch-ua'],
    purposes: [headers['sec-purpose'], headers.purpose, headers['x-moz'], headers['x-purpose']],
    address,
    page: page === '' ? undefined : page,
  };
}

function readVisitorId(request: FastifyRequest): string | undefined {
  const header = request.headers.cookie;
  if (header === undefined) return undefined;
  for (const part of header.split(';')) {
    const [name, value] = part.trim().split('=');
    if (name === VISITOR_COOKIE && value !== undefined && /^[A-Za-z0-9_-]{22}$/.test(value)) return value;
  }
  return undefined;
}

const DEAD_LINK_PAGE =
  '<!doctype html><html lang="en"><meta charset="utf-8"><title>Link not found</title><p>This link leads nowhere.</p></html>\n';

/** The page of a click link that leads nowhere (also an OpenRTB bid's, openrtb/openrtb-routes.ts). */
export function sendDeadLink(reply: FastifyReply) {
  reply.header('Cache-Control', 'no-store');
  return sendHtmlPage(reply, 404, DEAD_LINK_PAGE);
}

/** What a click link answers (a teaser's, a bid's): the ad, or a page saying it leads nowhere. */
export const CLICK_LINK_RESPONSES = {
  302: Type.Null({
    description:
      'Found: `Location` is the ad’s URL; no body. A teaser’s link also sets the `nv_cv` cookie the conversion pixel reads (`Set-Cookie`).',
  }),
  404: mediaAnswer('A small HTML page saying the link leads nowhere (no `Location`).', 'text/html', 'text'),
};

/** A visitor's browser follows a click link: whatever is wrong with it, it gets a page, not an API error. */
export function deadLinkWhenRefused(what: string) {
  return (error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    if (error.validation === undefined) throw error;
    request.log.info({ err: error }, what);
    return sendDeadLink(reply);
  };
}

/** Sends the visitor on to the ad of a click link, or to the dead-link page when it leads nowhere. */
export function followClickLink(reply: FastifyReply, location: string | undefined) {
  if (location === undefined) return sendDeadLink(reply);
  reply.header('Cache-Control', 'no-store');
  reply.header('Referrer-Policy', 'no-referrer-when-downgrade');
  return reply.redirect(location, 302);
}

function sendPixel(reply: FastifyReply) {
  reply.header('Cache-Control', 'no-store');
  reply.header('Access-Control-Allow-Origin', '*');
  reply.type('image/gif');
  return reply.send(PIXEL_GIF);
}

const postbackKeyRefused = () =>
  new DomainError('postback_key_refused', 'This postback does not carry the postback key of the click’s advertiser.');
