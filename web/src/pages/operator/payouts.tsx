import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { api, data, listPage, problem } from '../../api.ts';
import { BalanceMoveForm } from '../../components/balance-move-form.tsx';
import { Field, Notice } from '../../components/controls.tsx';
import { ListOrderControls, useListOrder } from '../../components/list-order.tsx';
import { Pager } from '../../components/pager.tsx';
import { ScrollRegion } from '../../components/scroll-region.tsx';
import { amountInput, fineMoney, moment, money } from '../../format.ts';
import { Link, setQuery, useLocation } from '../../router.tsx';
import './operator.css';
import { operatorKeys } from './operator-keys.ts';

const STATUSES = ['pending', 'paid', 'cancelled'] as const;
const PER_PAGE = 25;

interface Owed {
  userId: number;
  username: string;
  balance: number;
  /** The publisher's saved payout details, when it gave them. */
  payTo?: { method: string; holder: string; account: string };
}

const PAY_METHODS = {
  bank_transfer: 'payouts.method.bank_transfer',
  paypal: 'payouts.method.paypal',
  wise: 'payouts.method.wise',
  crypto: 'payouts.method.crypto',
  other: 'payouts.method.other',
} as const;

/** The orders of the list (`sort` of the API and of the address); '' is the API's default, newest first. */
const PAYOUT_SORTS = {
  '': 'payouts.sort.newest',
  created: 'payouts.sort.oldest',
  '-amount': 'payouts.sort.largest',
  amount: 'payouts.sort.smallest',
} as const;

const PAYOUT_STATUS = {
  pending: 'payouts.status.pending',
  paid: 'payouts.status.paid',
  cancelled: 'payouts.status.cancelled',
} as const;

export function PayoutsPage() {
  const { t } = useTranslation('operator');
  const queryClient = useQueryClient();
  const { query } = useLocation();
  const requested = query.get('status');
  const status = STATUSES.find((value) => value === requested);
  const page = Math.max(1, Number(query.get('page')) || 1);
  const balances = useQuery({
    queryKey: operatorKeys.payouts.balances(),
    queryFn: () => data(api.GET('/api/admin/publishers/balances', { params: { query: { 'per-page': 100 } } })),
  });
  const order = useListOrder(PAYOUT_SORTS);
  const payouts = useQuery({
    queryKey: operatorKeys.payouts.list(status, page, order.key),
    queryFn: () =>
      listPage(
        api.GET('/api/admin/payouts', {
          params: { query: { ...(status ? { status } : {}), ...order.query, page, 'per-page': PER_PAGE } },
        }),
      ),
  });
  const change = useMutation({
    mutationFn: ({ id, to }: { id: number; to: 'paid' | 'cancelled' }) =>
      data(api.PUT('/api/admin/payouts/{id}', { params: { path: { id } }, body: { status: to } })),
    onSettled: () => queryClient.invalidateQueries({ queryKey: operatorKeys.payouts.all() }),
  });
  const [paying, setPaying] = useState<Owed | null>(null);
  const [recorded, setRecorded] = useState<string | null>(null);
  const sorts = Object.fromEntries(Object.entries(PAYOUT_SORTS).map(([sort, label]) => [sort, t(label)])) as Record<
    keyof typeof PAYOUT_SORTS,
    string
  >;

  return (
    <>
      <div className="page-head">
        <h1>{t('payouts.title')}</h1>
      </div>
      <section className="section" aria-labelledby="owed-title">
        <div className="section-head">
          <h2 id="owed-title">{t('payouts.owed')}</h2>
          <span className="hint">{t('payouts.owedHint')}</span>
        </div>
        {balances.error && <Notice kind="error">{problem(balances.error)}</Notice>}
        {recorded && <Notice kind="ok">{recorded}</Notice>}
        {paying && (
          <RecordPayout
            owed={paying}
            onDone={(text) => {
              setPaying(null);
              setRecorded(text);
            }}
            onCancel={() => setPaying(null)}
          />
        )}
        <ScrollRegion label={t('payouts.owed')}>
          <table className="stack">
            <thead>
              <tr>
                <th scope="col">{t('payouts.publisher')}</th>
                <th scope="col" className="num">
                  {t('payouts.balance')}
                </th>
                <th scope="col" className="num">
                  {t('payouts.pendingPayouts')}
                </th>
                <th scope="col">
                  <span className="visually-hidden">{t('payouts.actions')}</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {(balances.data ?? []).map((row) => (
                <tr key={row.userId}>
                  <th scope="row">
                    <Link href={`/operator/accounts/${row.userId}`}>{row.username}</Link>
                    <span className="sub">{row.email}</span>
                  </th>
                  <td data-label={t('payouts.balance')} className="num">
                    {fineMoney(row.balance)}
                  </td>
                  <td data-label={t('payouts.pendingPayouts')} className="num">
                    {fineMoney(row.pending)}
                  </td>
                  <td className="actions-cell">
                    <button
                      type="button"
                      disabled={row.balance <= 0}
                      onClick={() => {
                        setRecorded(null);
                        setPaying(row);
                      }}
                    >
                      {t('payouts.record')}
                      <span className="visually-hidden"> {t('payouts.recordTo', { username: row.username })}</span>
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          {balances.isSuccess && balances.data.length === 0 && <p className="empty">{t('payouts.owedEmpty')}</p>}
        </ScrollRegion>
      </section>

      <section className="section" aria-labelledby="payouts-title">
        <div className="section-head">
          <h2 id="payouts-title">{t('payouts.title')}</h2>
          <ListOrderControls subject={t('payouts.subject')} placeholder={t('payouts.searchPlaceholder')} sorts={sorts} paged />
          <label>
            <span className="visually-hidden">{t('payouts.statusFilter')}</span>
            <select value={status ?? ''} onChange={(event) => setQuery({ status: event.target.value, page: undefined })}>
              <option value="">{t('payouts.everyStatus')}</option>
              <option value="pending">{t('payouts.filter.pending')}</option>
              <option value="paid">{t('payouts.filter.paid')}</option>
              <option value="cancelled">{t('payouts.filter.cancelled')}</option>
            </select>
          </label>
        </div>
        {(payouts.error || change.error) && <Notice kind="error">{problem(payouts.error ?? change.error)}</Notice>}
        <ScrollRegion label={t('payouts.title')}>
          <table className="stack">
            <thead>
              <tr>
                <th scope="col">{t('payouts.recorded')}</th>
                <th scope="col">{t('payouts.publisher')}</th>
                <th scope="col">{t('payouts.paidTo')}</th>
                <th scope="col" className="num">
                  {t('payouts.amount')}
                </th>
                <th scope="col">{t('payouts.statusColumn')}</th>
                <th scope="col">
                  <span className="visually-hidden">{t('payouts.actions')}</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {(payouts.data?.items ?? []).map((payout) => {
                return (
                  <tr key={payout.id}>
                    <td data-label={t('payouts.recorded')}>{moment(payout.date)}</td>
                    <td data-label={t('payouts.publisher')}>
                      <Link href={`/operator/accounts/${payout.userId}`}>{payout.username}</Link>
                    </td>
                    <td data-label={t('payouts.paidTo')} className="wrap">
                      {payout.wallet}
                    </td>
                    <td data-label={t('payouts.amount')} className="num">
                      {fineMoney(payout.amount)}
                    </td>
                    <td data-label={t('payouts.statusColumn')}>
                      <span className={`payout-status ${payout.status}`}>{t(PAYOUT_STATUS[payout.status])}</span>
                    </td>
                    <td className="actions-cell">
                      {payout.status === 'pending' && (
                        <>
                          <button
                            type="button"
                            className="primary"
                            disabled={change.isPending}
                            onClick={() => change.mutate({ id: payout.id, to: 'paid' })}
                          >
                            {t('payouts.markPaid')}
                            <span className="visually-hidden"> {t('payouts.number', { id: payout.id })}</span>
                          </button>
                          <button
                            type="button"
                            className="link danger"
                            disabled={change.isPending}
                            onClick={() => change.mutate({ id: payout.id, to: 'cancelled' })}
                          >
                            {t('payouts.cancel')}
                            <span className="visually-hidden"> {t('payouts.number', { id: payout.id })}</span>
                          </button>
                        </>
                      )}
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
          {payouts.data && payouts.data.items.length === 0 && <p className="empty">{t('payouts.empty')}</p>}
        </ScrollRegion>
        <Pager
          page={page}
          pageCount={payouts.data?.pageCount ?? 1}
          label={t('payouts.subject')}
          onPage={(next) => setQuery({ page: String(next) })}
        />
      </section>
    </>
  );
}

function RecordPayout({ owed, onDone, onCancel }: { owed: Owed; onDone: (text: string) => void; onCancel: () => void }) {
  const { t } = useTranslation('operator');
  const queryClient = useQueryClient();
  // The destination starts as the publisher's own payout details, in words the operator can edit.
  const [wallet, setWallet] = useState(
    owed.payTo === undefined
      ? ''
      : t('payouts.payTo', {
          method:
            owed.payTo.method in PAY_METHODS ? t(PAY_METHODS[owed.payTo.method as keyof typeof PAY_METHODS]) : owed.payTo.method,
          holder: owed.payTo.holder,
          account: owed.payTo.account,
        }),
  );
  const [walletMissing, setWalletMissing] = useState(false);
  const [status, setStatus] = useState<'pending' | 'paid'>('pending');
  const title = t('payouts.formTitle', { username: owed.username });
  return (
    <BalanceMoveForm
      title={title}
      heading="h3"
      className="card form-grid"
      lead={<p className="hint">{t('payouts.formHint', { balance: fineMoney(owed.balance) })}</p>}
      amount={{ label: t('payouts.amount'), name: 'payout-amount', field: 'amount', initial: amountInput(owed.balance) }}
      ask={t('payouts.recordAsk')}
      onCancel={onCancel}
      // The destination is checked before the confirmation too, so it never asks about a payout the server refuses.
      ready={() => {
        const noWallet = wallet.trim() === '';
        setWalletMissing(noWallet);
        return !noWallet;
      }}
      question={(move) => ({
        text: t(status === 'paid' ? 'payouts.confirmPaid' : 'payouts.confirmPending', {
          amount: money(Number(move.amount)),
          username: owed.username,
        }),
        confirm: t('payouts.confirm', { amount: money(Number(move.amount)) }),
      })}
      send={(move) =>
        data(api.POST('/api/admin/payouts', { body: { userId: owed.userId, amount: move.amount, wallet, status } }))
      }
      onMoved={(payout) => {
        queryClient.invalidateQueries({ queryKey: operatorKeys.payouts.all() });
        queryClient.invalidateQueries({ queryKey: operatorKeys.ledger.ofAccount(owed.userId) });
        onDone(
          t('payouts.recordedNotice', {
            amount: fineMoney(payout.amount),
            username: owed.username,
            status: t(PAYOUT_STATUS[payout.status]),
          }),
        );
      }}
    >
      {({ errors, edited }) => (
        <>
          <Field
            label={t('payouts.paidTo')}
            name="wallet"
            placeholder={t('payouts.walletPlaceholder')}
            value={wallet}
            error={walletMissing ? t('payouts.walletMissing') : errors.wallet}
            onChange={(event) => {
              setWalletMissing(false);
              edited('wallet');
              setWallet(event.target.value);
            }}
          />
          <Field label={t('payouts.statusColumn')} name="payout-status">
            <select
              id="field-payout-status"
              value={status}
              onChange={(event) => setStatus(event.target.value === 'paid' ? 'paid' : 'pending')}
            >
              <option value="pending">{t('payouts.form.pending')}</option>
              <option value="paid">{t('payouts.form.paid')}</option>
            </select>
          </Field>
        </>
      )}
    </BalanceMoveForm>
  );
}
