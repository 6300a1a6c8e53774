import { type Static, Type } from '@sinclair/typebox';
import { conversionSourceProperties, servedAndRefundedProperties } from '../../statistics/index.ts';

export const CoefficientSchema = Type.Object(
  {
    coef: Type.Number({ description: 'Coefficient, 0.1 to 10; 1 is the default. It multiplies the bid for this traffic.' }),
    campaignId: Type.Integer({ description: 'Campaign id.' }),
    siteId: Type.Integer({ description: 'Site id; 0 for a device coefficient.' }),
    deviceId: Type.Integer({ description: 'Device: 1 desktop, 2 mobile, 3 tablet; 0 for a site coefficient.' }),
    informerId: Type.Integer({
      description: 'Block ("informer") id of the site; 0 for the site as a whole or a device coefficient.',
    }),
  },
  { description: 'A quality coefficient of a campaign for a site, a block of a site, or a device type.' },
);
export type Coefficient = Static<typeof CoefficientSchema>;

const figures = {
  views: Type.Integer({ description: 'Viewable impressions (shows): teasers at least half in view for a second.' }),
  clicks: Type.Integer({ description: 'Clicks.' }),
  money: Type.Number({ description: 'Spent.' }),
  orders: Type.Integer({ description: 'Conversions of the goal chosen by `targetId`.' }),
  ...conversionSourceProperties,
  ctr: Type.Number({ description: 'CTR, % (clicks / views · 100).' }),
  cpm: Type.Number({ description: 'Cost per 1000 views.' }),
  cpo: Type.Number({ description: 'Cost per conversion.' }),
  cr: Type.Number({ description: 'Conversion rate, % (orders / clicks · 100).' }),
  cpc: Type.Number({ description: 'Cost per click.' }),
  ...servedAndRefundedProperties,
  coef: Type.Number({ description: 'The coefficient in force (1 when none is set).' }),
};

export const SiteStatisticsSchema = Type.Object(
  {
    site_id: Type.String({
      description:
        '`123` for site 123 as a whole (all its blocks), `123s45` for its block 45 (listed when that block has its own coefficient).',
    }),
    ...figures,
  },
  { description: "A campaign's traffic from one site or block, with its coefficient." },
);
export type SiteStatistics = Static<typeof SiteStatisticsSchema>;

export const DeviceStatisticsSchema = Type.Object(
  {
    device: Type.Union([Type.Literal('desktop'), Type.Literal('mobile'), Type.Literal('tablet')], {
      description: 'Device type.',
    }),
    ...figures,
  },
  { description: "A campaign's traffic from one device type, with its coefficient." },
);
export type DeviceStatistics = Static<typeof DeviceStatisticsSchema>;
