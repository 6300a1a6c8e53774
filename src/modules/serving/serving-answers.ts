import type { IncomingHttpHeaders } from 'node:http';
import { type Static, Type } from '@sinclair/typebox';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../../app-context.ts';
import type { AnswerReply } from '../../http/fast-reply.ts';
import { sendHtmlPage } from '../../http/html-page.ts';
import { Id, Text } from '../../http/input-types.ts';
import { errorResponses, mediaAnswer, NoContent } from '../../http/schemas.ts';
import { GOALS } from '../statistics/index.ts';
import { ConsentDecider, consentSignals } from './consent/consent.ts';
import { ConsentQueryFields } from './consent/consent-query.ts';
import { PIXEL_GIF } from './loader-script.ts';
import type { ClickLog, ServingEngine } from './serving-engine.ts';
import { TeaserAnswerWriter, TeasersAnswerSchema } from './teaser-answer.ts';
import { ConversionTagger, conversionCookie, conversionTags, withTag } from './tracking/conversion-cookie.ts';
import type { GivtRequest } from './tracking/invalid-traffic.ts';
import { MAX_TEASER_TOKEN_LENGTH } from './tracking/teaser-token.ts';
import { countryOf, visitorTraits } from './tracking/visitor.ts';
import { LOADER_ID_PATTERN } from './tracking/visitor-id.ts';

/*
 * What the teasers, click-link and beacon answers are made of, written once for both paths that
 * answer them: Fastify's routes (serving-routes.ts) and the serving fast path (serving-fast-path.ts,
 * docs/adr/0056). A request here is anything with headers and an address (a FastifyRequest is
 * one), a reply anything a serving answer can be written to (a FastifyReply is one).
 */

export const VISITOR_COOKIE = 'nv_vid';
export const LABEL = 'Sponsored';
export const JSON_TYPE = 'application/json; charset=utf-8';

export const BlockParams = Type.Object({
  blockId: Id('Block id (from the embed code).'),
});

export const TeasersQuery = Type.Object({
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

export const TEASERS_RESPONSES = { 200: TeasersAnswerSchema, ...errorResponses(404, 422) };

export const ClickParams = Type.Object({
  token: Text('The signed click token.', { maxLength: MAX_TEASER_TOKEN_LENGTH }),
});

export const VIEWS_RESPONSES = { 204: NoContent, ...errorResponses(413, 415, 422) };

/** How many impression tokens one beacon may carry: a page's teasers, with room to spare. */
export const MAX_TOKENS_PER_BEACON = 100;

/** The largest beacon body. */
export const BEACON_BODY_LIMIT = 16 * 1024;

export const ViewsBody = Type.Object(
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

/** What the serving answers read of a request: its headers and the client's address. */
export interface ServingRequest {
  headers: IncomingHttpHeaders;
  ip: string;
}

/** A teasers request: its validated query too. */
export interface TeasersRequest extends ServingRequest {
  query: Static<typeof TeasersQuery>;
}

export const GoalNames = Type.Union(
  (Object.keys(GOALS) as (keyof typeof GOALS)[]).map((goal) => Type.Literal(goal)),
  { description: 'Goal type: purchase, registration or intermediate.' },
);

export const ClickIdField = Text('The click id the ad URL received through `{click_id}`.', { minLength: 1, maxLength: 64 });

/** The pixel answers its GIF to anything (a thank-you page shows it whatever happens): every field is optional. */
export const PixelQuery = Type.Object({
  click_id: Type.Optional(ClickIdField),
  goal: Type.Optional(GoalNames),
});

export const PIXEL_RESPONSES = {
  200: mediaAnswer('A transparent 1×1 GIF, also when the query is invalid or nothing is counted.', 'image/gif'),
};

export type ServingBlock = NonNullable<ReturnType<ServingEngine['block']>>;

/** What the serving routes share, on both paths: the engine, consent, the answer writer, the pixel's tags. */
export interface ServingRouteContext {
  context: AppContext;
  serving: ServingEngine;
  currency: string;
  /** Whether the request's consent signals allow personal data; unreadable ones are counted. */
  decideConsent(request: { query: Parameters<typeof consentSignals>[0]; headers: IncomingHttpHeaders }): boolean;
  answers: TeaserAnswerWriter;
  pixelTags: ConversionTagger;
}

/** The serving routes' shared state, made once per app; undefined when the app serves nothing. */
export function servingRouteContext(context: AppContext): ServingRouteContext | undefined {
  const { serving } = context;
  if (serving === undefined) return undefined;
  const consent = new ConsentDecider({ vendorId: context.config.tcfVendorId });
  return {
    context,
    serving,
    currency: context.config.currency,
    decideConsent(request) {
      const verdict = consent.decide(consentSignals(request.query, request.headers['sec-gpc']));
      if (!verdict.personalised && verdict.unreadable !== undefined) serving.tally.consentUnreadable[verdict.unreadable] += 1;
      return verdict.personalised;
    },
    answers: new TeaserAnswerWriter(context.config.currency),
    pixelTags: new ConversionTagger(serving.keyFor('conversion-pixel')),
  };
}

/** The headers every teasers answer carries, set before anything can fail. */
export function startTeasersAnswer(request: ServingRequest, reply: AnswerReply): void {
  allowCors(request.headers.origin, reply);
  reply.header('Cache-Control', 'no-store');
}

/** The teasers of one impression of a block: judged, selected, counted as served. */
export async function chooseTeasers(
  { serving, decideConsent }: ServingRouteContext,
  block: ServingBlock,
  request: TeasersRequest,
) {
  const userAgent = request.headers['user-agent'];
  const traits = visitorTraits(userAgent);
  const { page, visitor } = request.query;
  // Without consent (docs/privacy.md) no visitor id is read: not the cookie, not the loader's.
  const personalised = !block.neverPersonalise && decideConsent(request);
  const cookieId = personalised ? readVisitorId(request.headers) : undefined;
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
  return { teasers, personalised };
}

export type ChosenTeasers = Awaited<ReturnType<typeof chooseTeasers>>;

/**
 * Sends the teasers answer as JSON text: it skips the serializer (and `fields`, which a request
 * sent here did not ask for).
 */
export function sendTeasersJson(
  { answers }: ServingRouteContext,
  reply: AnswerReply,
  block: ServingBlock,
  base: string,
  { teasers, personalised }: ChosenTeasers,
): void {
  reply.type(JSON_TYPE);
  reply.send(answers.write(block.id, LABEL, base, teasers, personalised, block.designJson, block.wideImages));
}

/** Records the viewable views of a beacon's tokens (none for general invalid traffic); the answer is a 204. */
export async function recordBeacon(
  { serving }: ServingRouteContext,
  request: ServingRequest,
  tokens: string[],
  reply: AnswerReply,
): Promise<void> {
  reply.header('Access-Control-Allow-Origin', '*');
  if (!serving.refusesViewBeacon(givtRequestOf(request), tokens.length)) {
    await serving.recordViews(tokens, request.headers['user-agent']);
  }
  reply.code(204);
}

/** A teaser's click link followed: verified, recorded, tagged for the pixel, redirected (or the dead-link page). */
export async function followTeaserClick<Reply extends AnswerReply>(
  { serving, pixelTags }: ServingRouteContext,
  request: ServingRequest,
  token: string,
  reply: Reply,
  log: ClickLog,
): Promise<Reply> {
  const redirect = await serving.redirect(token, givtRequestOf(request), log);
  if (redirect?.freshClickId !== undefined) {
    // Leaves the click's tag for the conversion pixel in the browser that follows a genuine, fresh link.
    const tags = conversionTags(request.headers.cookie);
    reply.header('Set-Cookie', conversionCookie(withTag(tags, pixelTags.tagOf(redirect.freshClickId))));
  }
  return followClickLink(reply, redirect?.location);
}

/**
 * Any page may embed a block (or call the OpenRTB endpoint from its header bidding). Browsers get their origin echoed with credentials allowed, so the
 * visitor cookie (retargeting) travels with the request; other clients get `*`.
 */
export function allowCors(origin: string | undefined, reply: AnswerReply): void {
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
export function givtRequestOf(request: ServingRequest, address: string = request.ip): GivtRequest {
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

export function readVisitorId(headers: IncomingHttpHeaders): string | undefined {
  const header = headers.cookie;
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
export function sendDeadLink<Reply extends AnswerReply>(reply: Reply): Reply {
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
export function followClickLink<Reply extends AnswerReply>(reply: Reply, location: string | undefined): Reply {
  if (location === undefined) return sendDeadLink(reply);
  reply.header('Cache-Control', 'no-store');
  reply.header('Referrer-Policy', 'no-referrer-when-downgrade');
  reply.redirect(location, 302);
  return reply;
}

/**
 * The conversion pixel: a conversion counted only from the browser that followed the click link
 * (its `nv_cv` cookie holds the click's tag); the GIF whatever happened.
 */
export async function recordConversionPixel<Reply extends AnswerReply>(
  { serving, pixelTags }: ServingRouteContext,
  request: ServingRequest,
  query: Static<typeof PixelQuery>,
  reply: Reply,
  log: { info(details: object, message: string): void },
): Promise<Reply> {
  const { click_id: clickId, goal } = query;
  if (clickId !== undefined && goal !== undefined) {
    if (conversionTags(request.headers.cookie).includes(pixelTags.tagOf(clickId))) {
      await serving.recordConversion({ clickId, goal: GOALS[goal], source: 'pixel' });
    } else log.info({ clickId }, 'conversion pixel without the tag of its click');
  }
  return sendPixel(reply);
}

export const CONVERSION_PIXEL_REFUSED = 'conversion pixel refused';

/** A pixel's answer (the conversion pixel, a bid's view pixel): a page shows whatever it answers. */
export function sendPixel<Reply extends AnswerReply>(reply: Reply): Reply {
  reply.header('Cache-Control', 'no-store');
  reply.header('Access-Control-Allow-Origin', '*');
  reply.type('image/gif');
  reply.send(PIXEL_GIF);
  return reply;
}

/** A pixel whose request failed (a query its schema refuses, a store unavailable): logged, and the GIF all the same. */
export function sendRefusedPixel<Reply extends AnswerReply>(
  reply: Reply,
  error: unknown,
  log: { info(details: object, message: string): void },
  what: string,
): Reply {
  log.info({ err: error }, what);
  return sendPixel(reply);
}
