import type { Db } from '../../../db/database.ts';
import { inTransaction } from '../../../db/transaction.ts';
import { type FieldError, notFound, validationFailed } from '../../../errors.ts';
import { microsToAmount } from '../../../money.ts';
import { readMoney } from '../../../shared/money-input.ts';
import { type DeviceId, dayOf } from '../../statistics/index.ts';
import { requireCampaign } from '../campaigns/campaign-service.ts';
import { trafficWithCoefficients, writeDeviceCoefficient, writeSiteCoefficient } from '../coefficients/coefficient-service.ts';
import { offersWithTotals, writeOfferActive } from '../offers/offer-service.ts';
import { type PlannedChange, planChanges, type RuleCondition, type RuleObject, ruleWindow } from './rule-evaluation.ts';
import {
  deleteRuleRow,
  findRule,
  insertRule,
  insertRuleChanges,
  listHistoryRules,
  listRuleChanges,
  listRules,
  markRuleRun,
  type RuleChangeRow,
  type RuleRow,
  updateRule,
} from './rule-repository.ts';
import type { AppliedChange, HistoryRule, PlannedChangeOutput, Rule, RuleBody, RunResult } from './rule-schema.ts';

export const toRule = (row: RuleRow): Rule => ({
  id: row.id,
  campaignId: row.campaign_id,
  title: row.title,
  scope: row.scope,
  metric: row.metric,
  comparison: row.comparison,
  threshold: microsToAmount(row.threshold_micros),
  windowDays: row.window_days,
  minClicks: row.min_clicks,
  authenticatedOnly: row.authenticated_only,
  action: row.action,
  coef: row.coef,
  enabled: row.enabled,
  nextRunAt: row.next_run_at.toISOString(),
  lastRunAt: row.last_run_at?.toISOString() ?? null,
});

/** The rule's columns from a body, or 422 naming every field that does not fit the others. */
function ruleColumns(body: RuleBody) {
  const problems: FieldError[] = [];
  if (body.scope === 'ad' && body.action !== 'pause') {
    problems.push({ field: 'action', message: 'An ad rule can only pause the ad.' });
  }
  if (body.scope !== 'ad' && body.action === 'pause') {
    problems.push({ field: 'action', message: 'Only an ad rule can pause; site, block and device rules set coefficients.' });
  }
  if (body.action === 'set_coefficient' && body.coef === undefined) {
    problems.push({ field: 'coef', message: 'Required by set_coefficient.' });
  }
  if (body.action !== 'set_coefficient' && body.coef !== undefined) {
    problems.push({ field: 'coef', message: 'Only set_coefficient takes a coefficient.' });
  }
  if (problems.length > 0) throw validationFailed(problems);
  return {
    title: body.title ?? '',
    scope: body.scope,
    metric: body.metric,
    comparison: body.comparison,
    threshold_micros: readMoney(body.threshold, 'threshold', { sign: 'non-negative' }),
    window_days: body.windowDays,
    min_clicks: body.minClicks ?? 0,
    authenticated_only: body.authenticatedOnly ?? false,
    action: body.action,
    coef: body.coef === undefined ? null : Math.round(body.coef * 10_000) / 10_000,
    enabled: body.enabled ?? true,
  };
}

export async function listCampaignRules(db: Db, advertiserId: number, campaignId: number): Promise<Rule[]> {
  await requireCampaign(db, advertiserId, campaignId);
  return (await listRules(db, campaignId)).map(toRule);
}

async function requireRule(db: Db, advertiserId: number, campaignId: number, id: number): Promise<RuleRow> {
  await requireCampaign(db, advertiserId, campaignId);
  const rule = await findRule(db, campaignId, id);
  if (rule === undefined) throw notFound('Rule');
  return rule;
}

export async function getRule(db: Db, advertiserId: number, campaignId: number, id: number): Promise<Rule> {
  return toRule(await requireRule(db, advertiserId, campaignId, id));
}

/** A new rule; the scheduler first runs it at once (its next run is now). */
export async function createRule(db: Db, advertiserId: number, campaignId: number, body: RuleBody, now: Date): Promise<Rule> {
  const columns = ruleColumns(body);
  return inTransaction(db, async (trx) => {
    await requireCampaign(trx, advertiserId, campaignId);
    return toRule(
      await insertRule(trx, { ...columns, campaign_id: campaignId, next_run_at: now, created_at: now, updated_at: now }),
    );
  });
}

export async function replaceRule(
  db: Db,
  target: { advertiserId: number; campaignId: number; id: number },
  body: RuleBody,
  now: Date,
): Promise<Rule> {
  const columns = ruleColumns(body);
  return inTransaction(db, async (trx) => {
    await requireRule(trx, target.advertiserId, target.campaignId, target.id);
    return toRule(await updateRule(trx, target.id, { ...columns, updated_at: now }));
  });
}

/** Deletes a rule; the changes it applied stay in the campaign's history, which keeps its title. */
export async function deleteRule(
  db: Db,
  target: { advertiserId: number; campaignId: number; id: number },
  now: Date,
): Promise<void> {
  await inTransaction(db, async (trx) => {
    await requireRule(trx, target.advertiserId, target.campaignId, target.id);
    await deleteRuleRow(trx, target.id, now);
  });
}

const conditionOf = (rule: RuleRow): RuleCondition => ({
  scope: rule.scope,
  metric: rule.metric,
  comparison: rule.comparison,
  thresholdMicros: rule.threshold_micros,
  minClicks: rule.min_clicks,
  authenticatedOnly: rule.authenticated_only,
  action: rule.action,
  coef: rule.coef,
});

/** The rule's objects with their figures in the window and their current state, read through their modules. */
async function ruleObjects(db: Db, rule: RuleRow, window: { from: string; to: string }): Promise<RuleObject[]> {
  if (rule.scope === 'ad') {
    const { offers, totals } = await offersWithTotals(db, rule.campaign_id, window, 0);
    return offers.map((offer) => ({
      siteId: 0,
      blockId: 0,
      device: 0,
      offerId: offer.id,
      totals: totals(offer.id),
      current: offer.active ? 1 : 0,
    }));
  }
  const traffic = await trafficWithCoefficients(db, rule.campaign_id, window, rule.scope);
  return traffic.map((row) => ({ ...row, offerId: 0, current: row.coef }));
}

/** What the rule would change now: the same list for a dry run and a run. */
async function evaluate(db: Db, rule: RuleRow, now: Date, timeZone: string) {
  const window = ruleWindow(dayOf(now.getTime(), timeZone), rule.window_days);
  const changes = planChanges(conditionOf(rule), await ruleObjects(db, rule, window));
  return { window, changes };
}

async function applyChange(trx: Db, rule: RuleRow, change: PlannedChange, now: Date): Promise<void> {
  const campaignId = rule.campaign_id;
  if (change.field === 'active') {
    await writeOfferActive(trx, change.offerId, change.after === 1, now);
  } else if (rule.scope === 'device') {
    await writeDeviceCoefficient(trx, { campaignId, device: change.device as DeviceId, coef: change.after, now });
  } else {
    await writeSiteCoefficient(trx, {
      campaignId,
      target: { siteId: change.siteId, blockId: change.blockId },
      coef: change.after,
      now,
    });
  }
}

const changeOutput = (
  scope: RuleRow['scope'],
  change: PlannedChange,
  window: { from: string; to: string },
): PlannedChangeOutput => ({
  object: scope,
  siteId: change.siteId,
  informerId: change.blockId,
  deviceId: change.device,
  adId: change.offerId,
  field: change.field,
  before: change.before,
  after: change.after,
  views: change.totals.views,
  clicks: change.totals.clicks,
  money: microsToAmount(change.totals.spendMicros),
  orders: change.totals.orders,
  dateFrom: window.from,
  dateTo: window.to,
});

/**
 * Runs a rule: evaluates it and applies every change in one transaction with a history row each
 * (the figures and window that triggered it). A dry run evaluates with the same code and writes nothing.
 */
export async function runRule(
  db: Db,
  rule: RuleRow,
  options: { dryRun: boolean; now: Date; timeZone: string; trigger: 'manual' | 'schedule' },
): Promise<RunResult> {
  const { now, timeZone } = options;
  const run = async (handle: Db) => {
    const { window, changes } = await evaluate(handle, rule, now, timeZone);
    if (!options.dryRun) {
      for (const change of changes) await applyChange(handle, rule, change, now);
      await insertRuleChanges(
        handle,
        changes.map((change) => ({
          rule_id: rule.id,
          campaign_id: rule.campaign_id,
          run_kind: options.trigger,
          object_kind: rule.scope,
          site_id: change.siteId,
          block_id: change.blockId,
          device: change.device,
          offer_id: change.offerId,
          field: change.field,
          before_value: change.before,
          after_value: change.after,
          views: change.totals.views,
          clicks: change.totals.clicks,
          spend_micros: change.totals.spendMicros,
          orders: change.totals.orders,
          window_from: window.from,
          window_to: window.to,
          created_at: now,
        })),
      );
      await markRuleRun(handle, rule.id, now);
    }
    return {
      ruleId: rule.id,
      dryRun: options.dryRun,
      dateFrom: window.from,
      dateTo: window.to,
      changes: changes.map((change) => changeOutput(rule.scope, change, window)),
    };
  };
  return options.dryRun ? run(db) : inTransaction(db, run);
}

/** Runs (or dry-runs) the advertiser's rule by hand. */
export async function runRuleByHand(
  db: Db,
  target: { advertiserId: number; campaignId: number; id: number },
  options: { dryRun: boolean; now: Date; timeZone: string },
): Promise<RunResult> {
  const rule = await requireRule(db, target.advertiserId, target.campaignId, target.id);
  return runRule(db, rule, { ...options, trigger: 'manual' });
}

const appliedChange = (row: RuleChangeRow): AppliedChange => ({
  id: Number(row.id),
  ruleId: row.rule_id,
  trigger: row.run_kind,
  object: row.object_kind,
  siteId: row.site_id,
  informerId: row.block_id,
  deviceId: row.device,
  adId: row.offer_id,
  field: row.field,
  before: row.before_value,
  after: row.after_value,
  views: row.views,
  clicks: row.clicks,
  money: microsToAmount(row.spend_micros),
  orders: row.orders,
  dateFrom: row.window_from,
  dateTo: row.window_to,
  createdAt: row.created_at.toISOString(),
});

/** The changes rules applied to a campaign, newest first, optionally of one rule. */
export async function ruleChangeHistory(
  db: Db,
  filter: { advertiserId: number; campaignId: number; ruleId?: number },
  limit: number,
  offset: number,
): Promise<{ rows: AppliedChange[]; total: number }> {
  await requireCampaign(db, filter.advertiserId, filter.campaignId);
  const { rows, total } = await listRuleChanges(db, filter, limit, offset);
  return { rows: rows.map(appliedChange), total };
}

/**
 * The rules whose changes are in the campaign's history, by id, with deleted ones marked: what the
 * history can be filtered by, since a deleted rule is no longer among the campaign's rules.
 */
export async function rulesInHistory(db: Db, advertiserId: number, campaignId: number): Promise<HistoryRule[]> {
  await requireCampaign(db, advertiserId, campaignId);
  const rows = await listHistoryRules(db, campaignId);
  return rows.map((row) => ({ ruleId: row.rule_id, title: row.title ?? '', deleted: row.deleted }));
}
