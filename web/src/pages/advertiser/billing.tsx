import { useQuery } from '@tanstack/react-query';
import { Trans, useTranslation } from 'react-i18next';
import { api, listPage, problem } from '../../api.ts';
import { ListStatus, Notice } from '../../components/controls.tsx';
import { ledgerComment } from '../../components/ledger-comment.ts';
import { Pager } from '../../components/pager.tsx';
import { ScrollRegion } from '../../components/scroll-region.tsx';
import { fineMoney, moment } from '../../format.ts';
import { navigate, useLocation } from '../../router.tsx';
import type { AdvertiserKey } from './advertiser-data.ts';
import { advertiserKeys } from './advertiser-keys.ts';

const PER_PAGE = 50;

/** What moved the money, in words. */
const KINDS: Record<string, AdvertiserKey> = {
  deposit: 'billing.kind.deposit',
  withdrawal: 'billing.kind.withdrawal',
  client_transfer: 'billing.kind.clientTransfer',
  click_charge: 'billing.kind.clickCharge',
  click_revenue: 'billing.kind.clickRevenue',
  refund_charge: 'billing.kind.refund',
  refund_revenue: 'billing.kind.refund',
  payout: 'billing.kind.payout',
  payout_cancel: 'billing.kind.payoutCancel',
};

const DAY = /^\d{4}-\d{2}-\d{2}$/;

/** A day of the period (YYYY-MM-DD, the browser's calendar) as the instant it starts. */
const startOf = (day: string) => new Date(`${day}T00:00:00`).toISOString();
const dayAfter = (day: string) => {
  const next = new Date(`${day}T00:00:00`);
  next.setDate(next.getDate() + 1);
  return next.toISOString();
};

/** Every move of the advertiser's balance, with the balance after it, by period, and as a CSV statement. */
export function BillingPage() {
  const { t } = useTranslation('advertiser');
  const { query } = useLocation();
  const from = DAY.test(query.get('from') ?? '') ? (query.get('from') as string) : '';
  const to = DAY.test(query.get('to') ?? '') ? (query.get('to') as string) : '';
  const page = Math.max(1, Number(query.get('page')) || 1);
  const period = { ...(from ? { from: startOf(from) } : {}), ...(to ? { to: dayAfter(to) } : {}) };
  const moves = useQuery({
    queryKey: advertiserKeys.ledger(from, to, page),
    queryFn: () => listPage(api.GET('/api/me/ledger', { params: { query: { page, 'per-page': PER_PAGE, ...period } } })),
  });
  const go = (next: { from?: string; to?: string; page?: number }) => {
    const params = new URLSearchParams();
    const wanted = { from, to, ...next };
    if (wanted.from) params.set('from', wanted.from);
    if (wanted.to) params.set('to', wanted.to);
    if (next.page && next.page > 1) params.set('page', String(next.page));
    const search = params.toString();
    navigate(`/advertiser/billing${search ? `?${search}` : ''}`);
  };
  const csv = new URLSearchParams({ format: 'csv', ...period });
  const items = moves.data?.items ?? [];
  const kindOf = (kind: string) => {
    const key = KINDS[kind];
    return key ? t(key) : kind;
  };
  return (
    <>
      <div className="page-head">
        <h1>{t('billing.title')}</h1>
        <a className="button" href={`/api/me/ledger/export?${csv}`} download>
          <Trans t={t} i18nKey="billing.download" components={{ hidden: <span className="visually-hidden" /> }} />
        </a>
      </div>
      <p className="lead">{t('billing.lead')}</p>
      <form className="toolbar period-range" onSubmit={(event) => event.preventDefault()} aria-label={t('billing.period')}>
        <div className="field">
          <label htmlFor="billing-from">{t('billing.from')}</label>
          <input
            id="billing-from"
            type="date"
            value={from}
            max={to || undefined}
            onChange={(event) => go({ from: event.target.value })}
          />
        </div>
        <div className="field">
          <label htmlFor="billing-to">{t('billing.to')}</label>
          <input
            id="billing-to"
            type="date"
            value={to}
            min={from || undefined}
            onChange={(event) => go({ to: event.target.value })}
          />
        </div>
        {(from || to) && (
          <button type="button" onClick={() => navigate('/advertiser/billing')}>
            {t('billing.wholeHistory')}
          </button>
        )}
      </form>
      {moves.error && <Notice kind="error">{problem(moves.error)}</Notice>}
      <ScrollRegion label={t('billing.table')}>
        <table>
          <caption className="visually-hidden">{t('billing.caption')}</caption>
          <thead>
            <tr>
              <th scope="col">{t('billing.when')}</th>
              <th scope="col">{t('billing.what')}</th>
              <th scope="col" className="num">
                {t('billing.amount')}
              </th>
              <th scope="col" className="num">
                {t('billing.balanceAfter')}
              </th>
              <th scope="col">{t('billing.comment')}</th>
            </tr>
          </thead>
          <tbody>
            {items.map((move) => (
              <tr key={move.id}>
                <th scope="row">{moment(move.date)}</th>
                <td>{kindOf(move.kind)}</td>
                <td className="num">{fineMoney(move.amount)}</td>
                <td className="num">{fineMoney(move.balance)}</td>
                <td className="wrap">{ledgerComment(move.comment)}</td>
              </tr>
            ))}
          </tbody>
        </table>
        <ListStatus query={moves} empty={items.length === 0}>
          {t('billing.empty')}
        </ListStatus>
      </ScrollRegion>
      {moves.data && (
        <Pager
          page={page}
          pageCount={Math.ceil(moves.data.total / PER_PAGE)}
          label={t('billing.pager')}
          onPage={(next) => go({ page: next })}
        />
      )}
    </>
  );
}
