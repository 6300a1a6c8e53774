import { randomBytes } from 'node:crypto';
import { Type } from '@sinclair/typebox';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../../app-context.ts';
import { notFound } from '../../errors.ts';
import { sendHtmlPage } from '../../http/html-page.ts';
import { acceptPlainTextList } from '../../http/input.ts';
import { Id, Text } from '../../http/input-types.ts';
import type { App } from '../../http/routes.ts';
import { errorResponses, mediaAnswer, NoContent } from '../../http/schemas.ts';
import { absoluteUrl } from '../../http/urls.ts';
import { GOALS } from '../statistics/vocabulary.ts';
import { ConsentDecider, consentSignals } from './consent/consent.ts';
import { ConsentQueryFields } from './consent/consent-query.ts';
import { minifiedLoaderScript, PIXEL_GIF } from './loader-script.ts';
import { TeaserAnswerWriter, TeasersAnswerSchema, teaserAnswer } from './teaser-answer.ts';
import { audienceExists } from './tracking/audiences.ts';
import type { GivtRequest } from './tracking/invalid-traffic.ts';
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

const ConversionQuery = Type.Object({
  click_id: Text('The click id the ad URL received through `{click_id}`.', { minLength: 1, maxLength: 64 }),
  goal: GoalNames,
});

const ConversionResponse = Type.Object({
  result: Type.Union([Type.Literal('recorded'), Type.Literal('duplicate')], {
    description: '`recorded` the first time for this click and goal, `duplicate` afterwards (not counted again).',
  }),
});

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

/** The public serving endpoints: embed script, teasers, click redirect, conversions, audiences. */
export function registerServingRoutes(app: App, context: AppContext): void {
  const { serving } = context;
  if (serving === undefined) return;
  const { currency } = context.config;
  const consent = new ConsentDecider({ vendorId: context.config.tcfVendorId });
  const answers = new TeaserAnswerWriter(currency);

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
      const personalised =
        !block.neverPersonalise && consent.decide(consentSignals(request.query, request.headers['sec-gpc'])).personalised;
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
          .send(answers.write(block.id, LABEL, base, teasers, personalised, block.designJson));
      }
      return teaserAnswer(block.id, LABEL, currency, base, teasers, personalised, block.designJson);
    },
  );

  // The beacon's text/plain body (one token per line) is read in this scope only.
  app.register(async (scope: App) => {
    acceptPlainTextList(scope, 'tokens');
    scope.post(
      '/api/serve/views',
      {
        config: SERVING,
        bodyLimit: 16 * 1024,
        schema: {
          tags,
          operationId: 'recordViews',
          summary: "The loader's viewability beacon: counts one viewable view per impression token, once.",
          description:
            'Sent by `navigator.sendBeacon` with a `text/plain` body of tokens, one per line (a simple request: no CORS preflight); a JSON, form or XML body `{tokens: [...]}` works too. Always 204 for a well-formed body: forged, expired and already counted tokens, and beacons of robots, count nothing (see `nativa_view_refusals_total`). Views reach the statistics within a second.',
          security: [],
          body: ViewsBody,
          response: { 204: NoContent, ...errorResponses(413, 415, 422) },
        },
      },
      async (request, reply) => {
        reply.header('Access-Control-Allow-Origin', '*');
        await serving.recordViews(request.body.tokens, request.headers['user-agent']);
        reply.code(204);
      },
    );
  });

  app.get(
    '/api/serve/click/:token',
    {
      config: { ...SERVING, page: true },
      schema: {
        tags,
        operationId: 'followClick',
        summary: 'Follows a click link: records it durably, redirects (302) to the ad URL, and bills it once right after.',
        description:
          'A forged or unreadable link never redirects, nor does a link to an ad that moderation rejected or that was deleted: those get a small HTML page (404, no `Location`). An expired, repeated or robot link to any other ad redirects unbilled.',
        security: [],
        params: ClickParams,
        response: CLICK_LINK_RESPONSES,
      },
      errorHandler: deadLinkWhenRefused('click link refused'),
    },
    async (request, reply) =>
      followClickLink(reply, await serving.redirect(request.params.token, givtRequestOf(request), request.log)),
  );

  app.get(
    '/api/serve/conversion',
    {
      config: PUBLIC,
      schema: {
        tags,
        operationId: 'recordConversion',
        summary: 'Server-to-server conversion postback; counted once per click and goal.',
        security: [],
        querystring: ConversionQuery,
        response: { 200: ConversionResponse, ...errorResponses(404, 422) },
      },
    },
    async (request, reply) => {
      reply.header('Cache-Control', 'no-store');
      const { query } = request;
      const result = await serving.recordConversion(query.click_id, GOALS[query.goal]);
      if (result === 'unknown') throw notFound('Click');
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
        summary: 'Conversion pixel (1×1 GIF, whatever happens); counted once per click and goal.',
        security: [],
        querystring: ConversionQuery,
        response: { 200: mediaAnswer('A transparent 1×1 GIF, also when the query is invalid.', 'image/gif') },
      },
      // A thank-you page shows whatever the pixel answers: a bad query is still a GIF (and logged).
      errorHandler: (error, request, reply) => {
        request.log.info({ err: error }, 'conversion pixel refused');
        sendPixel(reply);
      },
    },
    async (request, reply) => {
      await serving.recordConversion(request.query.click_id, GOALS[request.query.goal]);
      return sendPixel(reply);
    },
  );

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
      if (!consent.decide(consentSignals(request.query, request.headers['sec-gpc'])).personalised) {
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
  302: Type.Null({ description: 'Found: `Location` is the ad’s URL; no body.' }),
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
