import { type TSchema, Type } from '@sinclair/typebox';
import { ImpressionFields } from './explain-query.ts';
import { SERVING_REASONS, STORED_REASONS } from './explain-service.ts';

const Reason = Type.Union(
  [...STORED_REASONS, ...SERVING_REASONS].map((reason) => Type.Literal(reason)),
  {
    description:
      'Why the ad does not compete: campaign_paused (campaign paused or archived), campaign_not_approved (campaign in moderation or rejected), ad_paused, moderation (ad in moderation or rejected), not_indexed (servable, not yet in the serving index: within seconds), balance (advertiser balance spent), total_budget (campaign lifetime budget spent), budget (campaign or advertiser daily budget spent), daily_limit (campaign daily click limit reached), geo (another country), os (another operating system), browser (another browser), site_list (the campaign’s site allow or block list excludes the site), category (the site refuses the campaign’s or ad’s category), audience (retargeting, visitor not in the audience), page_repeat, frequency, schedule, flight (outside the campaign’s start and end), pacing (even pacing: ahead of the day’s allowance) (per-request filters), floor (bid × coefficients under the block’s minimum CPC), filtered (another per-request filter).',
  },
);

const nullable = <T extends TSchema>(schema: T, description: string) => Type.Union([schema, Type.Null()], { description });

const ExplainedAdSchema = Type.Object(
  {
    id: Type.Integer({ description: 'Ad id.' }),
    title: Type.String({ description: 'Ad title.' }),
    status: Type.Union([Type.Literal('eligible'), Type.Literal('filtered')], {
      description: 'eligible: the ad competes for this impression (see rank); filtered: it does not (see reasons).',
    }),
    reasons: Type.Array(Reason, { description: 'Why the ad does not compete; empty when eligible.' }),
    bid: Type.Number({ description: 'The ad’s bid per click, currency units.' }),
    placementCoefficient: nullable(
      Type.Number(),
      'The site or block coefficient applied for this block (1: none set); null when filtered.',
    ),
    deviceCoefficient: nullable(
      Type.Number(),
      'The device coefficient applied for this device (1: none set); null when filtered.',
    ),
    effectiveBid: nullable(
      Type.Number(),
      'Bid × placement coefficient × device coefficient, currency units; null when filtered.',
    ),
    ctr: nullable(
      Type.Number(),
      'The CTR estimate serving uses (a fraction of 1, smoothed with a 1% prior); null when filtered.',
    ),
    score: nullable(
      Type.Number(),
      'Expected value per thousand impressions (effective bid × CTR × 1000), currency units; ads are ranked by it. Null when filtered.',
    ),
    rank: nullable(
      Type.Integer(),
      'Place among every eligible ad of the block for this impression, 1 the best; null when filtered.',
    ),
    wins: Type.Boolean({ description: 'Whether the ad is among the teasers the block would show now (rank ≤ teaserCount).' }),
    price: nullable(
      Type.Number(),
      'What a click would cost at this rank, currency units (second price: the next ad’s score over this CTR plus 0.01, at least 0.01, at most the effective bid); for winners exactly the charge serving signs. Null when filtered.',
    ),
    priceToBeat: nullable(
      Type.Number(),
      'The effective bid (currency units per click, coefficients included) at which this ad would be shown now: the last shown place’s score over this ad’s CTR plus 0.01. Null when the ad is shown, filtered, or when every eligible ad is shown. This and the rank are all an advertiser learns of other advertisers’ ads.',
    ),
  },
  { description: 'One ad of the campaign, and why it would or would not show.' },
);

export const CampaignExplanationSchema = Type.Object(
  {
    campaign: Type.Integer({ description: 'Campaign id.' }),
    block: Type.Integer({ description: 'Block id explained.' }),
    ...ImpressionFields,
    teaserCount: Type.Integer({ description: 'How many teasers the block shows at once.' }),
    ads: Type.Array(ExplainedAdSchema, { description: 'Every ad of the campaign (deleted ones excluded), by id.' }),
  },
  { description: 'Why a campaign’s ads would or would not show in a block, now.' },
);

export const BlockExplanationSchema = Type.Object(
  {
    block: Type.Integer({ description: 'Block id.' }),
    ...ImpressionFields,
    teaserCount: Type.Integer({ description: 'How many teasers the block shows at once.' }),
    eligible: Type.Integer({ description: 'How many ads compete for this impression.' }),
    teasers: Type.Array(
      Type.Object(
        {
          rank: Type.Integer({ description: 'Place in the block, 1 first.' }),
          id: Type.Integer({ description: 'Ad id.' }),
          title: Type.String({ description: 'Ad title, as shown.' }),
          domain: Type.String({ description: 'The advertiser’s domain, as shown.' }),
          score: Type.Number({ description: 'Expected value per thousand impressions, currency units.' }),
        },
        { description: 'An ad that would fill the block.' },
      ),
      { description: 'The ads that would fill the block now, in order.' },
    ),
    filtered: Type.Array(
      Type.Object(
        {
          reason: Reason,
          count: Type.Integer({ description: 'How many ads this reason keeps out.' }),
        },
        { description: 'A reason ads do not compete, with how many.' },
      ),
      { description: 'Ads in serving that do not compete for this impression, counted by reason (reasons with none left out).' },
    ),
  },
  { description: 'What would fill a block now, and why the other ads in serving would not.' },
);
