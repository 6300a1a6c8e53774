import { Type } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import type { AppContext } from '../../app-context.ts';
import { notFound } from '../../errors.ts';
import { actorOf, inRequestTransaction } from '../../http/request-write.ts';
import { type App, accountOf } from '../../http/routes.ts';
import { errorResponses, IdParams } from '../../http/schemas.ts';
import { recordAudit } from '../audit/index.ts';
import { adsTxtLine } from './ads-txt.ts';
import { findSitePrivacy, type SitePrivacyRow, setNeverPersonalise } from './site-privacy-repository.ts';

const AdsTxtStatusSchema = Type.Object(
  {
    status: Type.Union(
      ['unchecked', 'found', 'missing', 'unreachable'].map((status) => Type.Literal(status)),
      {
        description:
          "unchecked (not yet), found (the site's /ads.txt has the line), missing (the file answered without it) or unreachable (no file, an error, a timeout, a refused address).",
      },
    ),
    detail: Type.String({ description: 'What the latest check saw, when it was not `found`.' }),
    checked_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], {
      description: 'When the site was last checked.',
    }),
  },
  { description: "The latest background check of the site's /ads.txt." },
);

const SitePrivacySchema = Type.Object(
  {
    site_id: Type.Integer({ description: 'Site id.' }),
    never_personalise: Type.Boolean({
      description:
        "The publisher's setting: the site's blocks serve without personal data (no visitor id, no retargeting, no frequency caps) whatever the visitor's consent.",
    }),
    ads_txt_line: Type.String({
      description: "The line to add to the site's /ads.txt: `<network domain>, <publisher id>, DIRECT` (IAB ads.txt 1.1).",
    }),
    ads_txt: AdsTxtStatusSchema,
  },
  { description: "A site's privacy setting and its ads.txt." },
);

const SitePrivacyBody = Type.Object(
  { never_personalise: Type.Boolean({ description: 'Serve the site without personal data whatever the signals.' }) },
  { additionalProperties: false },
);

/** A site's privacy settings and ads.txt for its publisher and the operator (docs/privacy.md). */
export function registerSitePrivacyRoutes(app: App, context: AppContext): void {
  const { db, clock, config } = context;
  const domainOf = (request: FastifyRequest) => config.adsTxtDomain ?? request.hostname.replace(/:\d+$/, '');
  const present = (request: FastifyRequest, row: SitePrivacyRow) => ({
    site_id: row.id,
    never_personalise: row.never_personalise,
    ads_txt_line: adsTxtLine(domainOf(request), row.publisher_id),
    ads_txt: {
      status: row.ads_txt_status as 'unchecked' | 'found' | 'missing' | 'unreachable',
      detail: row.ads_txt_detail,
      checked_at: row.ads_txt_checked_at === null ? null : row.ads_txt_checked_at.toISOString(),
    },
  });
  const found = async (siteId: number, publisherId?: number) => {
    const row = await findSitePrivacy(db, siteId, publisherId);
    if (row === undefined) throw notFound('Site');
    return row;
  };

  app.get(
    '/api/webmaster/sites/:id/privacy',
    {
      schema: {
        tags: ['Publisher'],
        operationId: 'getSitePrivacy',
        summary: "The site's privacy setting and the ads.txt line to publish, with the latest check of its /ads.txt.",
        params: IdParams,
        response: { 200: SitePrivacySchema, ...errorResponses(401, 403, 404, 422) },
      },
    },
    async (request) => present(request, await found(request.params.id, accountOf(request))),
  );

  app.put(
    '/api/webmaster/sites/:id/privacy',
    {
      schema: {
        tags: ['Publisher'],
        operationId: 'setSitePrivacy',
        summary: 'Sets whether the site never personalises (serving takes it up within SERVING_REFRESH_MS).',
        params: IdParams,
        body: SitePrivacyBody,
        response: { 200: SitePrivacySchema, ...errorResponses(401, 403, 404, 422) },
      },
    },
    async (request) => {
      const publisherId = accountOf(request);
      const now = new Date(clock.now());
      const row = await inRequestTransaction(request, db, async (trx) => {
        const before = await findSitePrivacy(trx, request.params.id, publisherId);
        if (before === undefined) throw notFound('Site');
        await setNeverPersonalise(trx, before.id, request.body.never_personalise);
        await recordAudit(
          trx,
          actorOf(request),
          {
            action: 'site.privacy',
            objectType: 'site',
            objectId: before.id,
            subjectAccountId: publisherId,
            before: { never_personalise: before.never_personalise },
            after: { never_personalise: request.body.never_personalise },
          },
          now,
        );
        return { ...before, never_personalise: request.body.never_personalise };
      });
      return present(request, row);
    },
  );

  app.get(
    '/api/admin/sites/:id/privacy',
    {
      schema: {
        tags: ['Operator'],
        operationId: 'adminGetSitePrivacy',
        summary: "A site's privacy setting and whether its /ads.txt has the network's line (the moderation card).",
        params: IdParams,
        response: { 200: SitePrivacySchema, ...errorResponses(401, 403, 404, 422) },
      },
    },
    async (request) => present(request, await found(request.params.id)),
  );

  app.post(
    '/api/admin/sites/:id/ads-txt-check',
    {
      schema: {
        tags: ['Operator'],
        operationId: 'adminCheckSiteAdsTxt',
        summary: "Checks the site's /ads.txt now (as the background check does: timeouts, public addresses only).",
        params: IdParams,
        response: { 200: SitePrivacySchema, ...errorResponses(401, 403, 404, 422) },
      },
    },
    async (request) => {
      const row = await found(request.params.id);
      await context.adsTxt?.checkSite(row.id, row.url, row.publisher_id, domainOf(request));
      return present(request, await found(row.id));
    },
  );
}
