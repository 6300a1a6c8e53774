import type { operations } from '@nativa/sdk';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useRef, useState } from 'react';
import { api, data, isNotFound, listPage, problem } from '../../api.ts';
import { Notice, Switch } from '../../components/controls.tsx';
import { Pager } from '../../components/pager.tsx';
import { ScrollRegion } from '../../components/scroll-region.tsx';
import { count, dayLabel, fineMoney, moment, money, percent } from '../../format.ts';
import { CampaignHead, CampaignNotFound, useCampaign } from './campaign-nav.tsx';
import { ACTIONS, COMPARISONS, METRICS, type Rule, RuleForm, SCOPES } from './rule-form.tsx';

type RunResult = operations['runRule']['responses'][200]['content']['application/json'];
type PlannedChange = RunResult['changes'][number];

const HISTORY_PER_PAGE = 20;
const DEVICE_NAMES: Record<number, string> = { 1: 'Desktop', 2: 'Phone', 3: 'Tablet' };

/** The object a change is about, in words. */
function objectOf(change: PlannedChange): string {
  if (change.object === 'site') return `Site ${change.siteId}`;
  if (change.object === 'block') return `Block ${change.informerId} of site ${change.siteId}`;
  if (change.object === 'device') return DEVICE_NAMES[change.deviceId] ?? `Device ${change.deviceId}`;
  return `Ad ${change.adId}`;
}

/** A value before or after a change: a coefficient, or whether the ad is on. */
function shownValue(change: PlannedChange, value: number): string {
  if (change.field === 'active') return value === 1 ? 'on' : 'off';
  return String(value);
}

function thresholdOf(rule: Rule): string {
  if (rule.metric === 'ctr') return percent(rule.threshold);
  if (rule.metric === 'conversions') return count(rule.threshold);
  return fineMoney(rule.threshold);
}

/** A rule in one sentence: what it watches, when it acts and what it does. */
function ruleSentence(rule: Rule): string {
  const when = `${METRICS[rule.metric]} ${COMPARISONS[rule.comparison]} ${thresholdOf(rule)} over ${rule.windowDays} ${
    rule.windowDays === 1 ? 'day' : 'days'
  }`;
  const clicks = rule.minClicks > 0 ? `, at least ${count(rule.minClicks)} clicks` : '';
  const action = rule.action === 'set_coefficient' ? `coefficient ${rule.coef}` : ACTIONS[rule.action].toLowerCase();
  return `${SCOPES[rule.scope]}: ${when}${clicks} → ${action}`;
}

/**
 * A campaign's optimisation rules (docs/rules-and-export.md): each can be tried (a dry run changes
 * nothing), run by hand or left to the scheduler; what runs applied is listed below, newest first.
 */
export function CampaignRulesPage({ id }: { id: number }) {
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
    queryKey: ['rules', id],
    queryFn: () => data(api.GET('/api/advertiser/campaigns/rules/{campaign}', { params: { path: { campaign: id } } })),
    enabled: campaign.isSuccess,
  });
  const refresh = () => queryClient.invalidateQueries({ queryKey: ['rules', id] });
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
    onSettled: () => Promise.all([refresh(), queryClient.invalidateQueries({ queryKey: ['rule-changes', id, 'rules'] })]),
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
        queryClient.invalidateQueries({ queryKey: ['rule-changes', id] });
        queryClient.invalidateQueries({ queryKey: ['traffic', id] });
        queryClient.invalidateQueries({ queryKey: ['campaign', id] });
        refresh();
      }
    },
  });

  if (isNotFound(campaign.error)) return <CampaignNotFound id={id} />;
  const list = rules.data ?? [];
  const error = campaign.error ?? rules.error ?? toggle.error ?? remove.error ?? run.error;
  const ruleOfResult = list.find((rule) => rule.id === result?.ruleId);
  return (
    <>
      <CampaignHead id={id} title={campaign.data?.title} current={'/rules'} />
      <p className="lead">
        A rule watches each site, block, device type or ad of the campaign over its last days, and changes the coefficient (or
        switches the ad off) of those whose figure crosses the threshold. The scheduler runs enabled rules about once an hour;
        “Dry run” shows what a run would change now, without changing anything.
      </p>
      {error && <Notice kind="error">{problem(error)}</Notice>}

      <section className="card" aria-labelledby="rules-title">
        <div className="section-head">
          <h2 id="rules-title">Rules</h2>
          <button ref={newRule} type="button" className="primary" onClick={() => setEditing('new')}>
            New rule
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
        <ScrollRegion label="Rules">
          <table className="rules">
            <thead>
              <tr>
                <th scope="col">Rule</th>
                <th scope="col">On schedule</th>
                <th scope="col">Last run</th>
                <th scope="col">
                  <span className="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {list.map((rule) => {
                const name = rule.title || `Rule ${rule.id}`;
                return (
                  <tr key={rule.id}>
                    <th scope="row">
                      {name}
                      <span className="sub">{ruleSentence(rule)}</span>
                    </th>
                    <td>
                      <Switch
                        checked={rule.enabled}
                        label={`Run ${name} on schedule`}
                        disabled={toggle.isPending}
                        onChange={(enabled) => toggle.mutate({ rule, enabled })}
                      />
                    </td>
                    <td>{rule.lastRunAt ? moment(rule.lastRunAt) : 'Never'}</td>
                    <td>
                      <div className="row-actions">
                        <button type="button" disabled={run.isPending} onClick={() => run.mutate({ rule, dryRun: true })}>
                          Dry run<span className="visually-hidden"> {name}</span>
                        </button>
                        <button
                          type="button"
                          disabled={run.isPending}
                          onClick={() =>
                            window.confirm(`Run “${name}” now? It applies its changes at once.`) &&
                            run.mutate({ rule, dryRun: false })
                          }
                        >
                          Run now<span className="visually-hidden"> {name}</span>
                        </button>
                        <button type="button" className="link" onClick={() => setEditing(rule)}>
                          Edit<span className="visually-hidden"> {name}</span>
                        </button>
                        <button
                          type="button"
                          className="link danger"
                          onClick={() =>
                            window.confirm(`Delete the rule “${name}”? The changes it applied stay in the history.`) &&
                            remove.mutate(rule)
                          }
                        >
                          Delete<span className="visually-hidden"> {name}</span>
                        </button>
                      </div>
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
          {rules.isSuccess && list.length === 0 && <p className="empty">No rules yet.</p>}
        </ScrollRegion>
      </section>

      {result && <RunResultSection result={result} name={ruleOfResult?.title || `Rule ${result.ruleId}`} />}
      <ChangeHistory campaignId={id} rules={list} />
    </>
  );
}

function RunResultSection({ result, name }: { result: RunResult; name: string }) {
  const title = result.dryRun ? `Dry run of ${name}` : `${name} ran`;
  const span = `${dayLabel(result.dateFrom)} – ${dayLabel(result.dateTo)}`;
  const summary =
    result.changes.length === 0
      ? `Nothing to change (window ${span}).`
      : `${result.dryRun ? 'Would change' : 'Changed'} ${count(result.changes.length)} ${
          result.changes.length === 1 ? 'object' : 'objects'
        } (window ${span}).`;
  return (
    <section className="card" aria-labelledby="run-title">
      <h2 id="run-title">{title}</h2>
      <p role="status">{summary}</p>
      {result.changes.length > 0 && (
        <ChangesTable
          label="Changes"
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
  return (
    <ScrollRegion label={label}>
      <table>
        <thead>
          <tr>
            {applied && <th scope="col">Applied</th>}
            <th scope="col">Object</th>
            <th scope="col">Change</th>
            <th scope="col" className="num">
              Views
            </th>
            <th scope="col" className="num">
              Clicks
            </th>
            <th scope="col" className="num">
              Spend
            </th>
            <th scope="col" className="num">
              Conversions
            </th>
            <th scope="col">Window</th>
            {applied && <th scope="col">Rule</th>}
          </tr>
        </thead>
        <tbody>
          {rows.map(({ key, change, applied: by }) => {
            return (
              <tr key={key}>
                {by && <td>{by.when}</td>}
                <th scope="row">{objectOf(change)}</th>
                <td>
                  {change.field === 'coef' ? 'Coefficient' : 'Ad'} {shownValue(change, change.before)} →{' '}
                  {shownValue(change, change.after)}
                </td>
                <td className="num">{count(change.views)}</td>
                <td className="num">{count(change.clicks)}</td>
                <td className="num">{money(change.money)}</td>
                <td className="num">{count(change.orders)}</td>
                <td>
                  {dayLabel(change.dateFrom)} – {dayLabel(change.dateTo)}
                </td>
                {by && <td>{by.rule}</td>}
              </tr>
            );
          })}
        </tbody>
      </table>
    </ScrollRegion>
  );
}

function ChangeHistory({ campaignId, rules }: { campaignId: number; rules: Rule[] }) {
  const [ruleId, setRuleId] = useState('');
  const [page, setPage] = useState(1);
  const history = useQuery({
    queryKey: ['rule-changes', campaignId, ruleId, page],
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
    queryKey: ['rule-changes', campaignId, 'rules'],
    queryFn: () =>
      data(api.GET('/api/advertiser/campaigns/rules/{campaign}/changes/rules', { params: { path: { campaign: campaignId } } })),
  });
  const current = new Set(rules.map((rule) => rule.id));
  const deleted = (ofHistory.data ?? []).filter((rule) => rule.deleted && !current.has(rule.ruleId));
  // The filter's options in this order: the rules, then the deleted ones.
  const names = new Map([
    ...rules.map((rule) => [rule.id, rule.title || `Rule ${rule.id}`] as const),
    ...deleted.map((rule) => [rule.ruleId, `${rule.title || `Rule ${rule.ruleId}`} (deleted)`] as const),
  ]);
  const changes = history.data?.items ?? [];
  return (
    <section className="card" aria-labelledby="history-title">
      <div className="section-head">
        <h2 id="history-title">Applied changes</h2>
        <div className="stacked">
          <label htmlFor="history-rule">Rule</label>
          <select
            id="history-rule"
            value={ruleId}
            onChange={(event) => {
              setRuleId(event.target.value);
              setPage(1);
            }}
          >
            <option value="">Every rule</option>
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
          label="Applied changes, newest first"
          applied={true}
          rows={changes.map((change) => ({
            key: String(change.id),
            change,
            applied: {
              when: moment(change.createdAt),
              rule: `${names.get(change.ruleId) ?? `Rule ${change.ruleId} (deleted)`}, ${
                change.trigger === 'manual' ? 'by hand' : 'on schedule'
              }`,
            },
          }))}
        />
      )}
      {history.isSuccess && changes.length === 0 && <p className="empty">No changes applied yet.</p>}
      <Pager page={page} pageCount={history.data?.pageCount ?? 1} label="applied changes" onPage={setPage} />
    </section>
  );
}
