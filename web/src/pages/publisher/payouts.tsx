import { pages } from '@nativa/sdk';
import { useQuery } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { api, problem } from '../../api.ts';
import { ListStatus, Notice } from '../../components/controls.tsx';
import { Tile } from '../../components/figures.tsx';
import { ListOrderControls, useListOrder } from '../../components/list-order.tsx';
import { ScrollRegion } from '../../components/scroll-region.tsx';
import { fineMoney, moment } from '../../format.ts';
import type { User } from '../../session.ts';
import { PayoutDetails } from './payout-details.tsx';
import { publisherKeys } from './publisher-keys.ts';
import { translatedNames } from './publisher-ui.tsx';

const PAYOUT_STATUS = {
  pending: { label: 'payouts.status.pending', className: 's0' },
  paid: { label: 'payouts.status.paid', className: 's1' },
  cancelled: { label: 'payouts.status.cancelled', className: 's2' },
} as const;

/** The orders of the list (`sort` of the API and of the address); '' is the API's default, newest first. */
const PAYOUT_SORTS = {
  '': 'payouts.sort.newest',
  created: 'payouts.sort.oldest',
  '-amount': 'payouts.sort.largest',
  amount: 'payouts.sort.smallest',
} as const;

/** The publisher's payouts (every page), searched and ordered by the server as `order` asks. */
function usePayouts(order: { q?: string; sort?: string }) {
  return useQuery({
    queryKey: publisherKeys.payouts(order.q ?? '', order.sort ?? ''),
    queryFn: async () => {
      const all = [];
      for await (const payout of pages((page) =>
        api.GET('/api/webmaster/payment', { params: { query: { page, 'per-page': 100, ...order } } }),
      ))
        all.push(payout);
      return all;
    },
  });
}

export function PayoutsPage({ user }: { user: User }) {
  const { t } = useTranslation('publisher');
  const sorts = translatedNames(PAYOUT_SORTS, t);
  // The tiles add up every payout; the table shows the ones searched for, in the order asked.
  const order = useListOrder(sorts);
  const payouts = usePayouts({});
  const listed = usePayouts(order.query);
  // Micro-units, so that sums of amounts with four fraction digits stay exact.
  const total = (status: 'pending' | 'paid') =>
    (payouts.data ?? [])
      .filter((payout) => payout.status === status)
      .reduce((sum, payout) => sum + Math.round(payout.amount * 1e6), 0) / 1e6;
  return (
    <>
      <div className="page-head">
        <h1>{t('payouts.title')}</h1>
      </div>
      <section className="tiles" aria-label={t('payouts.money')}>
        <Tile label={t('overview.balance')} value={fineMoney(user.balance)} note={t('overview.balanceNote')} />
        <Tile
          label={t('payouts.status.pending')}
          value={payouts.data ? fineMoney(total('pending')) : '…'}
          note={t('payouts.pendingNote')}
        />
        <Tile
          label={t('payouts.paidOut')}
          value={payouts.data ? fineMoney(total('paid')) : '…'}
          note={t('payouts.paidOutNote')}
        />
      </section>
      <p className="lead">{t('payouts.lead')}</p>
      <PayoutDetails />
      {payouts.error && <Notice kind="error">{problem(payouts.error)}</Notice>}
      <h2>{t('payouts.title')}</h2>
      <div className="toolbar">
        <ListOrderControls subject={t('payouts.subject')} placeholder={t('payouts.search')} sorts={sorts} />
      </div>
      {listed.error && <Notice kind="error">{problem(listed.error)}</Notice>}
      <ScrollRegion label={t('payouts.title')}>
        <table>
          <caption className="visually-hidden">{t('payouts.title')}</caption>
          <thead>
            <tr>
              <th scope="col">{t('payouts.column.recorded')}</th>
              <th scope="col">{t('payouts.column.wallet')}</th>
              <th scope="col" className="num">
                {t('payouts.column.amount')}
              </th>
              <th scope="col">{t('sites.status')}</th>
            </tr>
          </thead>
          <tbody>
            {(listed.data ?? []).map((payout) => (
              <tr key={payout.id}>
                <th scope="row">{moment(payout.date)}</th>
                <td className="wallet">{payout.wallet}</td>
                <td className="num">{fineMoney(payout.amount)}</td>
                <td>
                  <span className={`status ${PAYOUT_STATUS[payout.status].className}`}>
                    {t(PAYOUT_STATUS[payout.status].label)}
                  </span>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
        <ListStatus query={listed} empty={listed.data?.length === 0}>
          {order.query.q ? t('payouts.noMatch') : t('payouts.empty')}
        </ListStatus>
      </ScrollRegion>
    </>
  );
}
