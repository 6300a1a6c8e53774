import { pages } from '@nativa/sdk';
import { useQuery } from '@tanstack/react-query';
import { api, problem } from '../../api.ts';
import { ListStatus, Notice } from '../../components/controls.tsx';
import { Tile } from '../../components/figures.tsx';
import { ScrollRegion } from '../../components/scroll-region.tsx';
import { fineMoney, moment } from '../../format.ts';
import type { User } from '../../session.ts';
import { PayoutDetails } from './payout-details.tsx';

const PAYOUT_STATUS = {
  pending: { label: 'On its way', className: 's0' },
  paid: { label: 'Paid', className: 's1' },
  cancelled: { label: 'Cancelled, back in the balance', className: 's2' },
} as const;

export function PayoutsPage({ user }: { user: User }) {
  const payouts = useQuery({
    queryKey: ['payouts'],
    queryFn: async () => {
      const all = [];
      for await (const payout of pages((page) =>
        api.GET('/api/webmaster/payment', { params: { query: { page, 'per-page': 100 } } }),
      ))
        all.push(payout);
      return all;
    },
  });
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
      <ScrollRegion label="Payouts">
        <table>
          <caption className="visually-hidden">Payouts, newest first</caption>
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
            {(payouts.data ?? []).map((payout) => (
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
        <ListStatus query={payouts} empty={payouts.data?.length === 0}>
          No payouts yet.
        </ListStatus>
      </ScrollRegion>
    </>
  );
}
