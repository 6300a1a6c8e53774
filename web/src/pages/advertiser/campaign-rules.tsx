import type { operations } from '@nativa/sdk';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useRef, useState } from 'react';
import { Trans, useTranslation } from 'react-i18next';
import { api, data, isNotFound, listPage, problem } from '../../api.ts';
import { Notice, Switch } from '../../components/controls.tsx';
import { DataTable } from '../../components/data-table.tsx';
import { Pager } from '../../components/pager.tsx';
import { count, dayLabel, fineMoney, moment, money, percent } from '../../format.ts';
import type { AdvertiserKey } from './advertiser-data.ts';
import { advertiserKeys } from './advertiser-keys.ts';
import { CampaignHead, CampaignNotFound, useCampaign } from './campaign-nav.tsx';
import { COMPARISONS, METRICS, type Rule, RuleForm, SCOPES } from './rule-form.tsx';

type RunResult = operations['runRule']['responses'][200]['content']['application/json'];
type PlannedChange = RunResult['changes'][number];

const HISTORY_PER_PAGE = 20;
const DEVICE_NAMES: Record<number, AdvertiserKey> = { 1: 'device.desktop', 2: 'device.phone', 3: 'device.tablet' };

type Translate = ReturnType<typeof useTranslation<'advertiser'>>['t'];

/** The object a change is about, in words. */
function objectOf(change: PlannedChange, t: Translate): string {
  if (change.object === 'site') return t('rules.object.site', { site: change.siteId });
  if (change.object === 'block') return t('rules.object.block', { block: change.informerId, site: change.siteId });
  if (change.object === 'device') {
    const device = DEVICE_NAMES[change.deviceId];
    return device ? t(device) : t('rules.object.device', { device: change.deviceId });
  }
  return t('rules.object.ad', { ad: change.adId });
}

/** A value before or after a change: a coefficient, or whether the ad is on. */
function shownValue(change: PlannedChange, value: number, t: Translate): string {
  if (change.field === 'active') return value === 1 ? t('rules.value.on') : t('rules.value.off');
  return String(value);
}

function thresholdOf(rule: Rule): string {
  if (rule.metric === 'ctr') return percent(rule.threshold);
  if (rule.metric === 'conversions') return count(rule.threshold);
  return fineMoney(rule.threshold);
}

/** A rule in one sentence: what it watches, when it acts and what it does. */
function ruleSentence(rule: Rule, t: Translate): string {
  const when = t('rules.sentence.when', {
    metric: t(METRICS[rule.metric]),
    comparison: COMPARISONS[rule.comparison],
    threshold: thresholdOf(rule),
    count: rule.windowDays,
  });
  const clicks = rule.minClicks > 0 ? t('rules.sentence.clicks', { count: rule.minClicks, clicks: count(rule.minClicks) }) : '';
  const action =
    rule.action === 'set_coefficient'
      ? t('rules.sentence.coefficient', { coef: rule.coef })
      : t(rule.action === 'block' ? 'rules.sentence.block' : 'rules.sentence.pause');
  return t('rules.sentence', { scope: t(SCOPES[rule.scope]), when, clicks, action });
}

/**
 * A campaign's optimisation rules (docs/rules-and-export.md): each can be tried (a dry run changes
 * nothing), run by hand or left to the scheduler; what runs applied is listed below, newest first.
 */
export function CampaignRulesPage({ id }: { id: number }) {
  const { t } = useTranslation('advertiser');
  const queryClient = useQueryClient();
  const [editing, setEditing] = useState<Rule | 'new' | undefined>();
  const newRule = useRef<HTMLButtonElement>(null);
  // Where the keyboard goes on when the form closes (it stood where the form was opened from).
  const closeForm = () => {
    setEditing(undefined);
    newRule.current?.focus();
  };
  const [result, setResult] = useState<RunResult | undefined>();
  const campaign = useCampaign(id);
  const rules = useQuery({
    queryKey: advertiserKeys.rules(id),
    queryFn: () => data(api.GET('/api/advertiser/campaigns/rules/{campaign}', { params: { path: { campaign: id } } })),
    enabled: campaign.isSuccess,
  });
  const refresh = () => queryClient.invalidateQueries({ queryKey: advertiserKeys.rules(id) });
  const path = (rule: Rule) => ({ params: { path: { campaign: id, id: rule.id } } });
  const toggle = useMutation({
    mutationFn: ({ rule, enabled }: { rule: Rule; enabled: boolean }) => {
      const { id: _id, campaignId: _campaign, nextRunAt: _next, lastRunAt: _last, coef, ...fields } = rule;
      return data(
        api.PUT('/api/advertiser/campaigns/rules/{campaign}/{id}', {
          ...path(rule),
          body: { ...fields, ...(coef === null ? {} : { coef }), enabled },
        }),
      );
    },
    onSettled: refresh,
  });
  const remove = useMutation({
    mutationFn: (rule: Rule) => api.DELETE('/api/advertiser/campaigns/rules/{campaign}/{id}', path(rule)),
    onSuccess: () => setResult(undefined),
    // The history's rule filter now lists the rule as deleted.
    onSettled: () => Promise.all([refresh(), queryClient.invalidateQueries({ queryKey: advertiserKeys.ruleChanges.rules(id) })]),
  });
  const run = useMutation({
    mutationFn: ({ rule, dryRun }: { rule: Rule; dryRun: boolean }) =>
      data(
        api.POST('/api/advertiser/campaigns/rules/{campaign}/{id}/run', {
          ...path(rule),
          params: { ...path(rule).params, query: { dryRun } },
        }),
      ),
    onSuccess: (answer) => {
      setResult(answer);
      if (!answer.dryRun) {
        queryClient.invalidateQueries({ queryKey: advertiserKeys.ruleChanges.ofCampaign(id) });
        queryClient.invalidateQueries({ queryKey: advertiserKeys.traffic.ofCampaign(id) });
        queryClient.invalidateQueries({ queryKey: advertiserKeys.campaign.all(id) });
        refresh();
      }
    },
  });

  if (isNotFound(campaign.error)) return <CampaignNotFound id={id} />;
  const ruleName = (rule: Rule) => rule.title || t('rules.ruleN', { id: rule.id });
  /** A rule's buttons, each naming the rule to a screen reader. */
  const ruleActions = (rule: Rule) => {
    const name = ruleName(rule);
    const hidden = { values: { name }, components: { hidden: <span className="visually-hidden" /> } };
    return (
      <div className="row-actions">
        <button type="button" disabled={run.isPending} onClick={() => run.mutate({ rule, dryRun: true })}>
          <Trans t={t} i18nKey="rules.dryRun" {...hidden} />
        </button>
        <button
          type="button"
          disabled={run.isPending}
          onClick={() => window.confirm(t('rules.confirmRun', { name })) && run.mutate({ rule, dryRun: false })}
        >
          <Trans t={t} i18nKey="rules.runNow" {...hidden} />
        </button>
        <button type="button" className="link" onClick={() => setEditing(rule)}>
          <Trans t={t} i18nKey="rules.edit" {...hidden} />
        </button>
        <button
          type="button"
          className="link danger"
          onClick={() => window.confirm(t('rules.confirmDelete', { name })) && remove.mutate(rule)}
        >
          <Trans t={t} i18nKey="rules.delete" {...hidden} />
        </button>
      </div>
    );
  };
  const list = rules.data ?? [];
  const error = campaign.error ?? rules.error ?? toggle.error ?? remove.error ?? run.error;
  const ruleOfResult = list.find((rule) => rule.id === result?.ruleId);
  return (
    <>
      <CampaignHead id={id} title={campaign.data?.title} current={'/rules'} />
      <p className="lead">{t('rules.lead')}</p>
      {error && <Notice kind="error">{problem(error)}</Notice>}

      <section className="card" aria-labelledby="rules-title">
        <div className="section-head">
          <h2 id="rules-title">{t('rules.title')}</h2>
          <button ref={newRule} type="button" className="primary" onClick={() => setEditing('new')}>
            {t('rule.form.new')}
          </button>
        </div>
        {editing !== undefined && (
          <RuleForm
            key={editing === 'new' ? 'new' : editing.id}
            campaignId={id}
            rule={editing === 'new' ? undefined : editing}
            onDone={() => {
              closeForm();
              refresh();
            }}
            onCancel={closeForm}
          />
        )}
        <DataTable
          label={t('rules.title')}
          className="rules"
          rows={list}
          rowKey={(rule) => rule.id}
          empty={rules.isSuccess && t('rules.empty')}
          columns={[
            {
              head: t('rules.rule'),
              rowHeader: true,
              cell: (rule) => (
                <>
                  {ruleName(rule)}
                  <span className="sub">{ruleSentence(rule, t)}</span>
                </>
              ),
            },
            {
              head: t('rules.onSchedule'),
              cell: (rule) => (
                <Switch
                  checked={rule.enabled}
                  label={t('rules.runOnSchedule', { name: ruleName(rule) })}
                  disabled={toggle.isPending}
                  onChange={(enabled) => toggle.mutate({ rule, enabled })}
                />
              ),
            },
            { head: t('rules.lastRun'), cell: (rule) => (rule.lastRunAt ? moment(rule.lastRunAt) : t('rules.never')) },
            { head: t('action.actions'), hiddenHead: true, cell: (rule) => ruleActions(rule) },
          ]}
        />
      </section>

      {result && <RunResultSection result={result} name={ruleOfResult?.title || t('rules.ruleN', { id: result.ruleId })} />}
      <ChangeHistory campaignId={id} rules={list} />
    </>
  );
}

function RunResultSection({ result, name }: { result: RunResult; name: string }) {
  const { t } = useTranslation('advertiser');
  const title = result.dryRun ? t('rules.run.dryTitle', { name }) : t('rules.run.title', { name });
  const span = `${dayLabel(result.dateFrom)} – ${dayLabel(result.dateTo)}`;
  const summary =
    result.changes.length === 0
      ? t('rules.run.nothing', { span })
      : t(result.dryRun ? 'rules.run.wouldChange' : 'rules.run.changed', {
          count: result.changes.length,
          objects: count(result.changes.length),
          span,
        });
  return (
    <section className="card" aria-labelledby="run-title">
      <h2 id="run-title">{title}</h2>
      <p role="status">{summary}</p>
      {result.changes.length > 0 && (
        <ChangesTable
          label={t('rules.changes')}
          applied={false}
          rows={result.changes.map((change) => ({ key: objectKey(change), change }))}
        />
      )}
    </section>
  );
}

/** A row of a changes table: a change, and for an applied one when and by which rule. */
interface ChangeRow {
  key: string;
  change: PlannedChange;
  applied?: { when: string; rule: string };
}

/** One key per object: a run changes each object once. */
const objectKey = (change: PlannedChange) =>
  `${change.object}-${change.siteId}-${change.informerId}-${change.deviceId}-${change.adId}`;

function ChangesTable({ label, rows, applied }: { label: string; rows: ChangeRow[]; applied: boolean }) {
  const { t } = useTranslation('advertiser');
  return (
    <DataTable
      label={label}
      rows={rows}
      rowKey={(row) => row.key}
      columns={[
        applied && { head: t('rules.table.applied'), cell: (row) => row.applied?.when },
        { head: t('rules.table.object'), rowHeader: true, cell: ({ change }) => objectOf(change, t) },
        {
          head: t('rules.table.change'),
          cell: ({ change }) =>
            t(change.field === 'coef' ? 'rules.change.coef' : 'rules.change.ad', {
              before: shownValue(change, change.before, t),
              after: shownValue(change, change.after, t),
            }),
        },
        { head: t('figure.views'), numeric: true, cell: ({ change }) => count(change.views) },
        { head: t('figure.clicks'), numeric: true, cell: ({ change }) => count(change.clicks) },
        { head: t('figure.spend'), numeric: true, cell: ({ change }) => money(change.money) },
        { head: t('figure.conversions'), numeric: true, cell: ({ change }) => count(change.orders) },
        { head: t('rules.table.window'), cell: ({ change }) => `${dayLabel(change.dateFrom)} – ${dayLabel(change.dateTo)}` },
        applied && { head: t('rules.rule'), cell: (row) => row.applied?.rule },
      ]}
    />
  );
}

function ChangeHistory({ campaignId, rules }: { campaignId: number; rules: Rule[] }) {
  const { t } = useTranslation('advertiser');
  const [ruleId, setRuleId] = useState('');
  const [page, setPage] = useState(1);
  const history = useQuery({
    queryKey: advertiserKeys.ruleChanges.page(campaignId, ruleId, page),
    queryFn: () =>
      listPage(
        api.GET('/api/advertiser/campaigns/rules/{campaign}/changes', {
          params: {
            path: { campaign: campaignId },
            query: { page, 'per-page': HISTORY_PER_PAGE, ...(ruleId ? { ruleId: Number(ruleId) } : {}) },
          },
        }),
      ),
  });
  // Deleted rules are no longer among the campaign's rules, but their changes are in the history:
  // the API lists the rules of the history, so the filter keeps them, marked deleted.
  const ofHistory = useQuery({
    queryKey: advertiserKeys.ruleChanges.rules(campaignId),
    queryFn: () =>
      data(api.GET('/api/advertiser/campaigns/rules/{campaign}/changes/rules', { params: { path: { campaign: campaignId } } })),
  });
  const current = new Set(rules.map((rule) => rule.id));
  const deleted = (ofHistory.data ?? []).filter((rule) => rule.deleted && !current.has(rule.ruleId));
  // The filter's options in this order: the rules, then the deleted ones.
  const names = new Map([
    ...rules.map((rule) => [rule.id, rule.title || t('rules.ruleN', { id: rule.id })] as const),
    ...deleted.map(
      (rule) => [rule.ruleId, t('rules.history.deleted', { name: rule.title || t('rules.ruleN', { id: rule.ruleId }) })] as const,
    ),
  ]);
  const changes = history.data?.items ?? [];
  return (
    <section className="card" aria-labelledby="history-title">
      <div className="section-head">
        <h2 id="history-title">{t('rules.history.title')}</h2>
        <div className="stacked">
          <label htmlFor="history-rule">{t('rules.rule')}</label>
          <select
            id="history-rule"
            value={ruleId}
            onChange={(event) => {
              setRuleId(event.target.value);
              setPage(1);
            }}
          >
            <option value="">{t('rules.history.every')}</option>
            {[...names].map(([ruleId, name]) => (
              <option key={ruleId} value={ruleId}>
                {name}
              </option>
            ))}
          </select>
        </div>
      </div>
      {(history.error ?? ofHistory.error) && <Notice kind="error">{problem(history.error ?? ofHistory.error)}</Notice>}
      {changes.length > 0 && (
        <ChangesTable
          label={t('rules.history.table')}
          applied={true}
          rows={changes.map((change) => ({
            key: String(change.id),
            change,
            applied: {
              when: moment(change.createdAt),
              rule: t(change.trigger === 'manual' ? 'rules.history.byHand' : 'rules.history.scheduled', {
                rule: names.get(change.ruleId) ?? t('rules.history.deleted', { name: t('rules.ruleN', { id: change.ruleId }) }),
              }),
            },
          }))}
        />
      )}
      {history.isSuccess && changes.length === 0 && <p className="empty">{t('rules.history.empty')}</p>}
      <Pager page={page} pageCount={history.data?.pageCount ?? 1} label={t('rules.history.pager')} onPage={setPage} />
    </section>
  );
}
