import { type Static, Type } from '@sinclair/typebox';
import { Count, Money, Text } from '../../../http/input-types.ts';
import { Flag } from '../../../http/schemas.ts';

export const RULE_SCOPES = ['site', 'block', 'device', 'ad'] as const;
export const RULE_METRICS = ['cpa', 'ctr', 'conversions', 'spend_without_conversion'] as const;
export const RULE_COMPARISONS = ['gt', 'gte', 'lt', 'lte'] as const;
export const RULE_ACTIONS = ['set_coefficient', 'block', 'pause'] as const;

const oneOf = <T extends string>(values: readonly T[], description: string) =>
  Type.Union(
    values.map((value) => Type.Literal(value)),
    { description },
  );

const descriptions = {
  title: 'A name for the rule (at most 200 characters).',
  scope:
    'What the rule watches: each `site` of the campaign, each `block` of a site, each `device` type, or each `ad` of the campaign.',
  metric:
    'The figure tested: `cpa` (money per conversion; no value without conversions), `ctr` (%), `conversions` (a count) or `spend_without_conversion` (money spent when there was no conversion; no value when there was one).',
  comparison: 'How the figure is compared with the threshold: `gt` >, `gte` ≥, `lt` <, `lte` ≤.',
  threshold:
    'The threshold: money for cpa and spend_without_conversion, % for ctr, a count for conversions; at most 4 fraction digits.',
  windowDays: 'The window: the last N days (today included, platform time zone), 1 to 366.',
  minClicks: 'Only objects with at least this many clicks in the window are tested (default 0).',
  authenticatedOnly:
    'Count only authenticated conversions, those the advertiser’s server reported with its postback key, for cpa, conversions and spend_without_conversion; pixel conversions are left out (default false).',
  action:
    'What happens to an object whose figure crosses the threshold: `set_coefficient` (to `coef`), `block` (coefficient 0.1, the lowest there is) — both for site, block and device scopes — or `pause` (switch the ad off; ad scope only).',
  coef: 'The coefficient set by `set_coefficient`, 0.1 to 10; null for the other actions.',
  enabled: 'Whether the scheduler runs the rule (default true). A disabled rule can still be run by hand.',
};

export const RuleBodySchema = Type.Object(
  {
    title: Type.Optional(Text(descriptions.title, { maxLength: 200 })),
    scope: oneOf(RULE_SCOPES, descriptions.scope),
    metric: oneOf(RULE_METRICS, descriptions.metric),
    comparison: oneOf(RULE_COMPARISONS, descriptions.comparison),
    threshold: Money(descriptions.threshold, { minimum: 0 }),
    windowDays: Count(descriptions.windowDays, { minimum: 1, maximum: 366 }),
    minClicks: Type.Optional(Count(descriptions.minClicks)),
    authenticatedOnly: Type.Optional(Flag(descriptions.authenticatedOnly)),
    action: oneOf(RULE_ACTIONS, descriptions.action),
    coef: Type.Optional(Type.Number({ minimum: 0.1, maximum: 10, description: descriptions.coef })),
    enabled: Type.Optional(Flag(descriptions.enabled)),
  },
  { additionalProperties: false, description: 'An optimisation rule of a campaign.' },
);
export type RuleBody = Static<typeof RuleBodySchema>;

export const RuleSchema = Type.Object(
  {
    id: Type.Integer({ description: 'Rule id.' }),
    campaignId: Type.Integer({ description: 'Campaign id.' }),
    title: Type.String({ description: descriptions.title }),
    scope: oneOf(RULE_SCOPES, descriptions.scope),
    metric: oneOf(RULE_METRICS, descriptions.metric),
    comparison: oneOf(RULE_COMPARISONS, descriptions.comparison),
    threshold: Type.Number({ description: descriptions.threshold }),
    windowDays: Type.Integer({ description: descriptions.windowDays }),
    minClicks: Type.Integer({ description: descriptions.minClicks }),
    authenticatedOnly: Type.Boolean({ description: descriptions.authenticatedOnly }),
    action: oneOf(RULE_ACTIONS, descriptions.action),
    coef: Type.Union([Type.Number(), Type.Null()], { description: descriptions.coef }),
    enabled: Type.Boolean({ description: descriptions.enabled }),
    nextRunAt: Type.String({ format: 'date-time', description: 'When the scheduler runs it next (if enabled).' }),
    lastRunAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], {
      description: 'When it last ran and applied its changes (by hand or by the scheduler); null if never.',
    }),
  },
  { description: 'An optimisation rule of a campaign.' },
);
export type Rule = Static<typeof RuleSchema>;

const changeProperties = {
  object: oneOf(RULE_SCOPES, 'What kind of object changes: a site, a block, a device type or an ad.'),
  siteId: Type.Integer({ description: 'Site id; 0 for device and ad objects.' }),
  informerId: Type.Integer({ description: 'Block ("informer") id; 0 unless the object is a block.' }),
  deviceId: Type.Integer({ description: 'Device: 1 desktop, 2 mobile, 3 tablet; 0 unless the object is a device type.' }),
  adId: Type.Integer({ description: 'Ad id; 0 unless the object is an ad.' }),
  field: oneOf(['coef', 'active'] as const, 'What changes: the coefficient, or whether the ad is on (1) or off (0).'),
  before: Type.Number({ description: 'The value before the change.' }),
  after: Type.Number({ description: 'The value after the change.' }),
  views: Type.Integer({ description: 'Viewable impressions in the window.' }),
  clicks: Type.Integer({ description: 'Clicks in the window.' }),
  money: Type.Number({ description: 'Spent in the window.' }),
  orders: Type.Integer({ description: 'Conversions (all goals) in the window.' }),
  dateFrom: Type.String({ description: 'First day of the window (YYYY-MM-DD).' }),
  dateTo: Type.String({ description: 'Last day of the window (YYYY-MM-DD).' }),
};

export const PlannedChangeSchema = Type.Object(changeProperties, {
  description: 'A change a rule makes (or, in a dry run, would make), with the figures that trigger it.',
});
export type PlannedChangeOutput = Static<typeof PlannedChangeSchema>;

export const RunResultSchema = Type.Object(
  {
    ruleId: Type.Integer({ description: 'Rule id.' }),
    dryRun: Type.Boolean({ description: 'True: nothing was changed; `changes` is what a run would change now.' }),
    dateFrom: Type.String({ description: 'First day of the window evaluated (YYYY-MM-DD).' }),
    dateTo: Type.String({ description: 'Last day of the window evaluated (YYYY-MM-DD).' }),
    changes: Type.Array(PlannedChangeSchema, { description: 'The changes, by site, block, device and ad.' }),
  },
  { description: 'What a run of a rule changed, or would change.' },
);
export type RunResult = Static<typeof RunResultSchema>;

export const AppliedChangeSchema = Type.Object(
  {
    id: Type.Integer({ description: 'Change id.' }),
    ruleId: Type.Integer({ description: 'The rule that made it (it may since have been deleted).' }),
    trigger: oneOf(['manual', 'schedule'] as const, 'Whether a run by hand or the scheduler applied it.'),
    ...changeProperties,
    createdAt: Type.String({ format: 'date-time', description: 'When it was applied.' }),
  },
  { description: 'A change a rule applied, with the figures and window that triggered it.' },
);
export type AppliedChange = Static<typeof AppliedChangeSchema>;

export const HistoryRuleSchema = Type.Object(
  {
    ruleId: Type.Integer({ description: 'Rule id: the `ruleId` of its changes, and the filter of the history.' }),
    title: Type.String({
      description:
        "The rule's name; a deleted rule's is the one it had when deleted. Empty when it had none, or was deleted before the names of deleted rules were kept.",
    }),
    deleted: Type.Boolean({ description: 'True: the rule was deleted; the changes it applied stay in the history.' }),
  },
  { description: 'A rule that applied changes to the campaign.' },
);
export type HistoryRule = Static<typeof HistoryRuleSchema>;
