import type { operations } from '@nativa/sdk';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { TFunction } from 'i18next';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { api, data, listPage, problem } from '../../api.ts';
import { ConfirmMove, Notice } from '../../components/controls.tsx';
import { PeriodPicker, usePeriod } from '../../components/period-picker.tsx';
import { ScrollRegion } from '../../components/scroll-region.tsx';
import { count, dayLabel, moment, percent } from '../../format.ts';
import { Link, setQuery, useLocation } from '../../router.tsx';
import './operator.css';
import { operatorKeys } from './operator-keys.ts';

type Dimension = NonNullable<operations['adminInvalidTraffic']['parameters']['query']>['by'] & string;
type Review = operations['adminGetSiteReview']['responses'][200]['content']['application/json'];
type ReviewAction = NonNullable<operations['adminActOnSiteReview']['requestBody']>['content']['application/json']['action'];

const DIMENSIONS: readonly Exclude<Dimension, 'day'>[] = ['site', 'block', 'reason', 'network'];

const DIMENSION_LABELS = {
  site: 'ivt.dimension.site',
  block: 'ivt.dimension.block',
  reason: 'ivt.dimension.reason',
  network: 'ivt.dimension.network',
  day: 'ivt.dimension.day',
} as const;

/** Each reason in words; a reason this page does not know shows as the server wrote it. */
const REASON_LABELS = {
  bot: 'ivt.reason.bot',
  automation: 'ivt.reason.automation',
  datacenter: 'ivt.reason.datacenter',
  prefetch: 'ivt.reason.prefetch',
  foreign_site: 'ivt.reason.foreign_site',
  no_opportunity: 'ivt.reason.no_opportunity',
  repeat_click: 'ivt.reason.repeat_click',
  concentration: 'ivt.reason.concentration',
  network_mismatch: 'ivt.reason.network_mismatch',
  click_flood: 'ivt.reason.click_flood',
  duplicate: 'ivt.reason.duplicate',
  publisher_fraud: 'ivt.reason.publisher_fraud',
  manual: 'ivt.reason.manual',
} as const;

const OUTCOME_LABELS = { refused: 'ivt.outcome.refused', refunded: 'ivt.outcome.refunded' } as const;

const ACTIONS = {
  refund: { label: 'ivt.action.refund', question: 'ivt.confirm.refund', yes: 'ivt.yes.refund', done: 'ivt.done.refund' },
  warn: { label: 'ivt.action.warn', question: 'ivt.confirm.warn', yes: 'ivt.yes.warn', done: 'ivt.done.warn' },
  ban: { label: 'ivt.action.ban', question: 'ivt.confirm.ban', yes: 'ivt.yes.ban', done: 'ivt.done.ban' },
  dismiss: { label: 'ivt.action.dismiss', question: 'ivt.confirm.dismiss', yes: 'ivt.yes.dismiss', done: 'ivt.done.dismiss' },
} as const;

const reasonText = (t: TFunction<'operator'>, reason: string) =>
  reason in REASON_LABELS ? t(REASON_LABELS[reason as keyof typeof REASON_LABELS]) : reason;
const actionText = (t: TFunction<'operator'>, action: string) =>
  action in ACTIONS ? t(ACTIONS[action as keyof typeof ACTIONS].label) : action;

/** The operators' invalid-traffic page: the review queue with its actions, the invalid share by one dimension, the trend by day. */
export function InvalidTrafficPage() {
  const { t } = useTranslation('operator');
  const period = usePeriod();
  const { query } = useLocation();
  const by = DIMENSIONS.find((dimension) => dimension === query.get('by')) ?? 'site';
  const shares = useShares(by, period);
  const trend = useShares('day', period);
  return (
    <>
      <div className="page-head">
        <h1>{t('ivt.title')}</h1>
        <div className="pickers">
          <PeriodPicker />
        </div>
      </div>
      <p className="lead">{t('ivt.lead')}</p>
      <ReviewQueue />
      <section className="section" aria-labelledby="ivt-share-title">
        <div className="section-head">
          <h2 id="ivt-share-title">{t('ivt.shareTitle')}</h2>
        </div>
        <div className="toolbar">
          <label>
            <span>{t('ivt.by')} </span>
            <select value={by} onChange={(event) => setQuery({ by: event.target.value })}>
              {DIMENSIONS.map((dimension) => (
                <option key={dimension} value={dimension}>
                  {t(DIMENSION_LABELS[dimension])}
                </option>
              ))}
            </select>
          </label>
        </div>
        {shares.error && <Notice kind="error">{problem(shares.error)}</Notice>}
        <ShareTable label={t('ivt.shareTitle')} by={by} rows={shares.data?.rows} />
      </section>
      <section className="section" aria-labelledby="ivt-trend-title">
        <div className="section-head">
          <h2 id="ivt-trend-title">{t('ivt.trendTitle')}</h2>
        </div>
        {trend.error && <Notice kind="error">{problem(trend.error)}</Notice>}
        <ShareTable label={t('ivt.trendTitle')} by="day" rows={trend.data?.rows} />
      </section>
    </>
  );
}

function useShares(by: Dimension, period: { from: string; to: string }) {
  return useQuery({
    queryKey: operatorKeys.invalidTraffic.shares(by, period),
    queryFn: () =>
      data(api.GET('/api/admin/invalid-traffic', { params: { query: { by, dateFrom: period.from, dateTo: period.to } } })),
  });
}

type ShareRow = operations['adminInvalidTraffic']['responses'][200]['content']['application/json']['rows'][number];

function ShareTable({ label, by, rows }: { label: string; by: Dimension; rows: ShareRow[] | undefined }) {
  const { t } = useTranslation('operator');
  const what = (row: ShareRow) => {
    if (by === 'day') return dayLabel(row.key);
    if (by === 'reason') return reasonText(t, row.key);
    if (by === 'network') return row.key === '' ? t('ivt.noAddress') : row.key;
    if (by === 'block') return `#${row.key} · ${row.siteUrl ?? ''}`;
    return row.siteUrl ?? `#${row.key}`;
  };
  return (
    <ScrollRegion label={t('ivt.figuresOf', { what: label })}>
      <table className="stack">
        <thead>
          <tr>
            <th scope="col">{t(DIMENSION_LABELS[by])}</th>
            <th scope="col">{t('ivt.clicks')}</th>
            <th scope="col">{t('ivt.refused')}</th>
            <th scope="col">{t('ivt.refunded')}</th>
            <th scope="col">{t('ivt.share')}</th>
          </tr>
        </thead>
        <tbody>
          {(rows ?? []).map((row) => (
            <tr key={row.key}>
              <th scope="row" className="wrap">
                {what(row)}
              </th>
              <td data-label={t('ivt.clicks')}>{count(row.clicks)}</td>
              <td data-label={t('ivt.refused')}>{count(row.refusedClicks)}</td>
              <td data-label={t('ivt.refunded')}>{count(row.refundedClicks)}</td>
              <td data-label={t('ivt.share')}>{by === 'reason' ? '' : percent(row.invalidShare)}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {rows && rows.length === 0 && <p className="empty">{t('ivt.empty')}</p>}
    </ScrollRegion>
  );
}

function ReviewQueue() {
  const { t } = useTranslation('operator');
  const queryClient = useQueryClient();
  const [done, setDone] = useState<string | null>(null);
  // Every action is audited and none is undone by another click: each is asked once more, in words.
  const [asking, setAsking] = useState<{ reviewId: number; action: ReviewAction } | null>(null);
  const reviews = useQuery({
    queryKey: operatorKeys.invalidTraffic.reviews(),
    queryFn: () =>
      listPage(api.GET('/api/admin/invalid-traffic/reviews', { params: { query: { status: 'open', 'per-page': 100 } } })),
  });
  const act = useMutation({
    mutationFn: ({ review, action }: { review: Review; action: ReviewAction }) =>
      data(
        api.POST('/api/admin/invalid-traffic/reviews/{id}/actions', {
          params: { path: { id: review.id } },
          body: action === 'refund' ? { action, reason: 'publisher_fraud' } : { action },
        }),
      ),
    onSuccess: (result, { review, action }) => {
      setAsking(null);
      setDone(t(ACTIONS[action].done, { site: review.siteUrl, refund: result.refundId ?? 0 }));
    },
    onSettled: () => queryClient.invalidateQueries({ queryKey: operatorKeys.invalidTraffic.all() }),
  });
  const items = reviews.data?.items ?? [];
  return (
    <section className="section" aria-labelledby="ivt-queue-title">
      <div className="section-head">
        <h2 id="ivt-queue-title">{t('ivt.queueTitle')}</h2>
        <span className="hint">{t('ivt.queueHint')}</span>
      </div>
      {reviews.error && <Notice kind="error">{problem(reviews.error)}</Notice>}
      {act.error && <Notice kind="error">{problem(act.error)}</Notice>}
      {done && <Notice kind="ok">{done}</Notice>}
      {items.length === 0 && reviews.data && <p className="empty">{t('ivt.queueEmpty')}</p>}
      {items.map((review) => (
        <article key={review.id} className="card" aria-labelledby={`review-${review.id}`}>
          <h3 id={`review-${review.id}`} className="wrap">
            {review.siteUrl}
          </h3>
          <dl className="facts">
            <dt>{t('ivt.publisher')}</dt>
            <dd>
              <Link href={`/operator/accounts/${review.userId}`}>#{review.userId}</Link>
            </dd>
            <dt>{t('ivt.period')}</dt>
            <dd>
              {moment(review.periodFrom)} – {moment(review.periodTo)}
            </dd>
            <dt>{t('ivt.invalidOfClicks')}</dt>
            <dd>
              {t('ivt.invalidCount', { invalid: count(review.invalidClicks), clicks: count(review.clicks) })} (
              {percent(review.invalidShare)})
            </dd>
            <dt>{t('ivt.evidence')}</dt>
            <dd>
              <ul>
                {review.evidence.map((row) => (
                  <li key={`${row.outcome}-${row.reason}`}>
                    {t(OUTCOME_LABELS[row.outcome])}: {reasonText(t, row.reason)} — {count(row.clicks)}
                  </li>
                ))}
              </ul>
            </dd>
            {review.actions.length > 0 && (
              <>
                <dt>{t('ivt.actionsTaken')}</dt>
                <dd>{review.actions.map((action) => actionText(t, action)).join(', ')}</dd>
              </>
            )}
          </dl>
          <div className="actions">
            {(Object.keys(ACTIONS) as ReviewAction[]).map((action) => (
              <button
                key={action}
                type="button"
                className={action === 'ban' ? 'danger' : action === 'refund' ? 'primary' : undefined}
                disabled={act.isPending}
                aria-describedby={`review-${review.id}`}
                onClick={() => {
                  setDone(null);
                  setAsking({ reviewId: review.id, action });
                }}
              >
                {t(ACTIONS[action].label)}
              </button>
            ))}
          </div>
          {asking?.reviewId === review.id && (
            <ConfirmMove
              text={t(ACTIONS[asking.action].question, {
                site: review.siteUrl,
                from: moment(review.periodFrom),
                to: moment(review.periodTo),
              })}
              confirm={t(ACTIONS[asking.action].yes)}
              pending={act.isPending}
              onConfirm={() => act.mutate({ review, action: asking.action })}
              onCancel={() => setAsking(null)}
            />
          )}
        </article>
      ))}
    </section>
  );
}
