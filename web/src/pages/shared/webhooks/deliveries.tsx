import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Trans, useTranslation } from 'react-i18next';
import { api, listPage, problem } from '../../../api.ts';
import { Notice, Options } from '../../../components/controls.tsx';
import { Pager } from '../../../components/pager.tsx';
import { ScrollRegion } from '../../../components/scroll-region.tsx';
import { count, moment } from '../../../format.ts';
import { type Endpoint, PREFIX, type WebhookKind } from './webhook-events.ts';
import { webhookKeys } from './webhook-keys.ts';

const PER_PAGE = 20;
const STATUSES = {
  pending: 'deliveries.status.pending',
  delivered: 'deliveries.status.delivered',
  failed: 'deliveries.status.failed',
} as const;
type Status = keyof typeof STATUSES;

/** An endpoint's deliveries (each event on its way) and its delivery log (each attempt), newest first. */
export function Deliveries({ kind, endpoint }: { kind: WebhookKind; endpoint: Endpoint }) {
  const { t } = useTranslation('shared');
  const queryClient = useQueryClient();
  const [status, setStatus] = useState<Status | ''>('');
  const [page, setPage] = useState(1);
  const [attemptPage, setAttemptPage] = useState(1);
  const path = { id: endpoint.id };
  const deliveries = useQuery({
    queryKey: webhookKeys.deliveries.page(endpoint.id, status, page),
    queryFn: async () => {
      const answer = await listPage(
        api.GET(`${PREFIX[kind]}/webhooks/{id}/deliveries`, {
          params: { path, query: { page, 'per-page': PER_PAGE, ...(status ? { status } : {}) } },
        }),
      );
      // The log is read after every reading of the deliveries, not on a clock of its own: an attempt
      // commits with its delivery's new status, so a log read before the deliveries' could miss the
      // attempt of a delivery shown as done until its next reading (up to 10 s later).
      void queryClient.invalidateQueries({ queryKey: webhookKeys.attempts.ofEndpoint(endpoint.id) });
      return answer;
    },
    // Deliveries move on their own (the worker, retries): an open page follows them, closely while one is on its way.
    refetchInterval: (query) => (query.state.data?.items.some((delivery) => delivery.status === 'pending') ? 2000 : 10_000),
  });
  const attempts = useQuery({
    queryKey: webhookKeys.attempts.page(endpoint.id, attemptPage),
    queryFn: () =>
      listPage(
        api.GET(`${PREFIX[kind]}/webhooks/{id}/attempts`, {
          params: { path, query: { page: attemptPage, 'per-page': PER_PAGE } },
        }),
      ),
  });
  const redeliver = useMutation({
    mutationFn: (deliveryId: number) =>
      api.POST(`${PREFIX[kind]}/webhooks/{id}/deliveries/{deliveryId}/redeliver`, { params: { path: { ...path, deliveryId } } }),
    onSettled: () => {
      queryClient.invalidateQueries({ queryKey: webhookKeys.deliveries.ofEndpoint(endpoint.id) });
      queryClient.invalidateQueries({ queryKey: webhookKeys.attempts.ofEndpoint(endpoint.id) });
    },
  });
  const statusNames = { pending: t(STATUSES.pending), delivered: t(STATUSES.delivered), failed: t(STATUSES.failed) };
  const rows = deliveries.data?.items ?? [];
  const log = attempts.data?.items ?? [];
  return (
    <section className="card" aria-labelledby="deliveries-title">
      <div className="section-head">
        <h2 id="deliveries-title">{t('deliveries.title', { url: endpoint.url })}</h2>
        <div className="stacked">
          <label htmlFor="delivery-status">{t('deliveries.column.status')}</label>
          <select
            id="delivery-status"
            value={status}
            onChange={(event) => {
              setStatus(event.target.value as Status | '');
              setPage(1);
            }}
          >
            <option value="">{t('deliveries.everyStatus')}</option>
            <Options names={statusNames} />
          </select>
        </div>
      </div>
      {(deliveries.error || attempts.error || redeliver.error) && (
        <Notice kind="error">{problem(deliveries.error ?? attempts.error ?? redeliver.error)}</Notice>
      )}
      {rows.length > 0 && (
        <ScrollRegion label={t('deliveries.label')}>
          <table>
            <thead>
              <tr>
                <th scope="col">{t('deliveries.column.event')}</th>
                <th scope="col">{t('deliveries.column.happened')}</th>
                <th scope="col">{t('deliveries.column.status')}</th>
                <th scope="col" className="num">
                  {t('deliveries.column.attempts')}
                </th>
                <th scope="col">
                  <span className="visually-hidden">{t('webhooks.column.actions')}</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {rows.map((delivery) => (
                <tr key={delivery.id}>
                  <th scope="row">
                    <code>{delivery.type}</code>
                    <span className="sub">{delivery.eventId}</span>
                  </th>
                  <td>{moment(delivery.date)}</td>
                  <td>
                    {statusNames[delivery.status]}
                    {delivery.status === 'delivered' && delivery.deliveredAt && (
                      <span className="sub">{moment(delivery.deliveredAt)}</span>
                    )}
                    {delivery.status === 'pending' && delivery.nextAttemptAt && (
                      <span className="sub">{t('deliveries.nextAttempt', { when: moment(delivery.nextAttemptAt) })}</span>
                    )}
                  </td>
                  <td className="num">{count(delivery.attempts)}</td>
                  <td>
                    <button
                      type="button"
                      className="link"
                      disabled={redeliver.isPending}
                      onClick={() => redeliver.mutate(delivery.id)}
                    >
                      <Trans
                        t={t}
                        i18nKey="deliveries.sendAgain"
                        values={{ event: delivery.eventId }}
                        components={{ hidden: <span className="visually-hidden" /> }}
                      />
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </ScrollRegion>
      )}
      {deliveries.isSuccess && rows.length === 0 && (
        <p className="empty">{status ? t('deliveries.noneInStatus') : t('deliveries.none')}</p>
      )}
      <Pager page={page} pageCount={deliveries.data?.pageCount ?? 1} label={t('deliveries.pager')} onPage={setPage} />

      <h3 className="subhead">{t('attempts.title')}</h3>
      {log.length > 0 && (
        <ScrollRegion label={t('attempts.title')}>
          <table>
            <thead>
              <tr>
                <th scope="col">{t('attempts.column.when')}</th>
                <th scope="col">{t('deliveries.column.event')}</th>
                <th scope="col">{t('attempts.column.answer')}</th>
                <th scope="col" className="num">
                  {t('attempts.column.time')}
                </th>
                <th scope="col">{t('attempts.column.body')}</th>
              </tr>
            </thead>
            <tbody>
              {log.map((attempt) => (
                <tr key={attempt.id}>
                  <th scope="row">{moment(attempt.date)}</th>
                  <td>
                    <code>{attempt.type}</code>
                  </td>
                  <td>{attempt.statusCode === null ? t('attempts.noAnswer') : `HTTP ${attempt.statusCode}`}</td>
                  <td className="num">{t('attempts.milliseconds', { ms: count(attempt.latencyMs) })}</td>
                  <td className="excerpt">{attempt.error || attempt.response}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </ScrollRegion>
      )}
      {attempts.isSuccess && log.length === 0 && <p className="empty">{t('attempts.none')}</p>}
      <Pager page={attemptPage} pageCount={attempts.data?.pageCount ?? 1} label={t('attempts.pager')} onPage={setAttemptPage} />
    </section>
  );
}
