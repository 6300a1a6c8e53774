import { Type } from '@sinclair/typebox';
import type { AppContext } from '../../../app-context.ts';
import { invalidField } from '../../../errors.ts';
import { Id, Text } from '../../../http/input-types.ts';
import { requestDb } from '../../../http/request-write.ts';
import { type App, accountOf } from '../../../http/routes.ts';
import { errorResponses, Flag } from '../../../http/schemas.ts';
import { created } from '../../../http/urls.ts';
import { ZERO_TOTALS } from '../../statistics/index.ts';
import { ChangeCampaignBody } from '../campaigns/campaign-routes.ts';
import { CampaignSchema } from '../campaigns/campaign-schema.ts';
import { getCampaignWithStats } from '../campaigns/campaign-service.ts';
import { parseDevice, parseSiteTarget } from '../coefficients/targets.ts';
import { AdSchema, toAd } from '../offers/offer-schema.ts';
import { duplicateOffer } from '../offers/offer-service.ts';
import { type BulkCoefficient, changeCampaigns, duplicateCampaign, setCoefficients, switchOffers } from './bulk-service.ts';

const MAX_IDS = 500;

const Ids = (what: string) =>
  Type.Array(Id(`A ${what} id.`), {
    minItems: 1,
    maxItems: MAX_IDS,
    description: `The ${what}s to change (1–${MAX_IDS}); all change or none does.`,
  });

const Changed = Type.Object(
  { ids: Type.Array(Type.Integer(), { description: 'The ids changed, each once, in the order given.' }) },
  { description: 'What a bulk change changed: every id asked for.' },
);

const BulkCampaignBody = Type.Object(
  { ids: Ids('campaign'), ...ChangeCampaignBody.properties },
  { additionalProperties: false, description: 'The same change on many campaigns.' },
);

const BulkOfferBody = Type.Object(
  { ids: Ids('ad'), active: Flag('Switch the ads on (true) or off (false).') },
  { additionalProperties: false },
);

const BulkCoefficientBody = Type.Object(
  {
    ids: Ids('campaign'),
    site: Type.Optional(
      Text('Site id `123` (the whole site) or `123s45` (block 45 of site 123); give site or device.', {
        pattern: '^\\d{1,10}(s\\d{1,10})?$',
      }),
    ),
    device: Type.Optional(Text('Device type: desktop, mobile, tablet (or 1, 2, 3); give site or device.', { maxLength: 16 })),
    coef: Type.Number({ minimum: 0.1, maximum: 10, description: 'Coefficient, from 0.1 to 10 (4 fraction digits kept).' }),
  },
  { additionalProperties: false },
);

const DuplicateBody = (what: string) => Type.Object({ id: Id(`The ${what} to copy.`) }, { additionalProperties: false });

const bulkFailure =
  'All or nothing: when any id fails, nothing changes and the 422 has one entry per failing id, its field `ids[n]` (the position in the request).';

/** Bulk changes and duplicates of an advertiser's campaigns and ads (extensions). */
export function registerBulkRoutes(app: App, context: AppContext): void {
  const { db, clock } = context;
  const platformTimeZone = context.config.timeZone;

  app.post(
    '/api/advertiser/campaigns/bulk',
    {
      schema: {
        tags: ['Campaigns'],
        operationId: 'changeCampaigns',
        summary: 'The same change on many campaigns: on/off, archive, delivery and control fields (extension).',
        description: bulkFailure,
        body: BulkCampaignBody,
        response: { 200: Changed, ...errorResponses(401, 403, 422) },
      },
    },
    async (request) => {
      const { ids, ...change } = request.body;
      if (Object.values(change).every((value) => value === undefined))
        throw invalidField('ids', 'Give at least one field to change.');
      const now = new Date(clock.now());
      return { ids: await changeCampaigns(db, accountOf(request), ids, change, now, platformTimeZone) };
    },
  );

  app.post(
    '/api/advertiser/offers/bulk',
    {
      schema: {
        tags: ['Ads'],
        operationId: 'switchOffers',
        summary: 'Switch many ads on or off (extension).',
        description: bulkFailure,
        body: BulkOfferBody,
        response: { 200: Changed, ...errorResponses(401, 403, 422) },
      },
    },
    async (request) => ({
      ids: await switchOffers(db, accountOf(request), request.body.ids, request.body.active, new Date(clock.now())),
    }),
  );

  app.post(
    '/api/advertiser/campaigns/multipliers/bulk',
    {
      schema: {
        tags: ['Quality coefficients'],
        operationId: 'setCoefficients',
        summary: 'Set one site, block or device coefficient on many campaigns (extension).',
        description: bulkFailure,
        body: BulkCoefficientBody,
        response: { 200: Changed, ...errorResponses(401, 403, 422) },
      },
    },
    async (request) => {
      const { ids, site, device, coef } = request.body;
      if ((site === undefined) === (device === undefined)) throw invalidField('site', 'Give either site or device.');
      let change: BulkCoefficient;
      if (site !== undefined) {
        const target = parseSiteTarget(site);
        if (target === undefined) throw invalidField('site', 'Must be a site id (123) or a block of it (123s45).');
        change = { site: target, coef };
      } else {
        const deviceId = parseDevice(device ?? '');
        if (deviceId === undefined) throw invalidField('device', 'Must be desktop, mobile or tablet (or 1, 2, 3).');
        change = { device: deviceId, coef };
      }
      return { ids: await setCoefficients(db, accountOf(request), ids, change, new Date(clock.now())) };
    },
  );

  app.post(
    '/api/advertiser/campaigns/duplicate',
    {
      schema: {
        tags: ['Campaigns'],
        operationId: 'duplicateCampaign',
        summary: 'Copy a campaign with its settings, coefficients and ads; the copy and its ads await moderation (extension).',
        body: DuplicateBody('campaign'),
        response: { 201: CampaignSchema, ...errorResponses(401, 403, 404, 422) },
      },
      config: { idempotent: true },
    },
    async (request, reply) => {
      const advertiserId = accountOf(request);
      const write = requestDb(request, db);
      const copyId = await duplicateCampaign(write, advertiserId, request.body.id, new Date(clock.now()));
      const { campaign } = await getCampaignWithStats(write, advertiserId, copyId, { from: undefined, to: undefined }, 0);
      return created(request, reply, `/api/advertiser/campaigns/${copyId}`, campaign);
    },
  );

  app.post(
    '/api/advertiser/offers/duplicate',
    {
      schema: {
        tags: ['Ads'],
        operationId: 'duplicateOffer',
        summary: 'Copy an ad into its campaign; the copy awaits moderation (extension).',
        body: DuplicateBody('ad'),
        response: { 201: AdSchema, ...errorResponses(401, 403, 404, 422) },
      },
      config: { idempotent: true },
    },
    async (request, reply) => {
      const copy = await duplicateOffer(requestDb(request, db), accountOf(request), request.body.id, new Date(clock.now()));
      return created(request, reply, `/api/advertiser/offers/${copy.id}`, toAd(request, copy, ZERO_TOTALS));
    },
  );
}
