import { pages } from '@nativa/sdk';
import { useQuery } from '@tanstack/react-query';
import { api, problem } from '../../api.ts';
import { ListStatus, Notice } from '../../components/controls.tsx';
import { Tile } from '../../components/figures.tsx';
import { ListOrderControls, useListOrder } from '../../components/list-order.tsx';
import { ScrollRegion } from '../../components/scroll-region.tsx';
import { fineMoney, moment } from '../../format.ts';
import type { User } from '../../session.ts';
import { PayoutDetails } from './payout-details.tsx';

const PAYOUT_STATUS = {
  pending: { label: 'On its way', className: 's0' },
  paid: { label: 'Paid', className: 's1' },
  cancelled: { label: 'Cancelled, back in the balance', className: 's2' },
} as const;

/** The orders of the list (`sort` of the API and of the address); '' is the API's default, newest first. */
const PAYOUT_SORTS = { '': 'Newest first', created: 'Oldest first', '-amount': 'Largest first', amount: 'Smallest first' };

/** The publisher's payouts (every page), searched and ordered by the server as `order` asks. */
function usePayouts(order: { q?: string; sort?: string }) {
  return useQuery({
    queryKey: ['payouts', order.q ?? '', order.sort ?? ''],
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
  // The tiles add up every payout; the table shows the ones searched for, in the order asked.
  const order = useListOrder(PAYOUT_SORTS);
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
        <h1>Payouts</h1>
      </div>
      <section className="tiles" aria-label="Money">
        <Tile label="Balance" value={fineMoney(user.balance)} note="earned, not yet paid out" />
        <Tile label="On its way" value={payouts.data ? fineMoney(total('pending')) : '…'} note="recorded, not yet sent" />
        <Tile label="Paid out" value={payouts.data ? fineMoney(total('paid')) : '…'} note="since the account opened" />
      </section>
      <p className="lead">
        Your share of every billed click goes into the balance. The network’s operators pay it out to your wallet; a recorded
        payout leaves the balance at once, and a cancelled one comes back to it.
      </p>
      <PayoutDetails />
      {payouts.error && <Notice kind="error">{problem(payouts.error)}</Notice>}
      <h2>Payouts</h2>
      <div className="toolbar">
        <ListOrderControls subject="payouts" placeholder="Search by wallet" sorts={PAYOUT_SORTS} />
      </div>
      {listed.error && <Notice kind="error">{problem(listed.error)}</Notice>}
      <ScrollRegion label="Payouts">
        <table>
          <caption className="visually-hidden">Payouts</caption>
          <thead>
            <tr>
              <th scope="col">Recorded</th>
              <th scope="col">Wallet</th>
              <th scope="col" className="num">
                Amount
              </th>
              <th scope="col">Status</th>
            </tr>
          </thead>
          <tbody>
            {(listed.data ?? []).map((payout) => (
              <tr key={payout.id}>
                <th scope="row">{moment(payout.date)}</th>
                <td className="wallet">{payout.wallet}</td>
                <td className="num">{fineMoney(payout.amount)}</td>
                <td>
                  <span className={`status ${PAYOUT_STATUS[payout.status].className}`}>{PAYOUT_STATUS[payout.status].label}</span>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
        <ListStatus query={listed} empty={listed.data?.length === 0}>
          {order.query.q ? 'No payout matches the search.' : 'No payouts yet.'}
        </ListStatus>
      </ScrollRegion>
    </>
  );
}
