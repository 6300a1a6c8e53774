import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { api, data, listPage, problem, useFieldErrors } from '../../api.ts';
import { ConfirmMove, Field, FormActions, Notice } from '../../components/controls.tsx';
import { ListOrderControls, useListOrder } from '../../components/list-order.tsx';
import { Pager } from '../../components/pager.tsx';
import { ScrollRegion } from '../../components/scroll-region.tsx';
import { amountInput, fineMoney, moment, money, parseAmount } from '../../format.ts';
import { Link, setQuery, useLocation } from '../../router.tsx';
import './operator.css';

const STATUSES = ['pending', 'paid', 'cancelled'] as const;
const PER_PAGE = 25;

interface Owed {
  userId: number;
  username: string;
  balance: number;
}

/** The orders of the list (`sort` of the API and of the address); '' is the API's default, newest first. */
const PAYOUT_SORTS = { '': 'Newest first', created: 'Oldest first', '-amount': 'Largest first', amount: 'Smallest first' };

export function PayoutsPage() {
  const queryClient = useQueryClient();
  const { query } = useLocation();
  const requested = query.get('status');
  const status = STATUSES.find((value) => value === requested);
  const page = Math.max(1, Number(query.get('page')) || 1);
  const balances = useQuery({
    queryKey: ['payouts', 'balances'],
    queryFn: () => data(api.GET('/api/admin/publishers/balances', { params: { query: { 'per-page': 100 } } })),
  });
  const order = useListOrder(PAYOUT_SORTS);
  const payouts = useQuery({
    queryKey: ['payouts', 'list', status, page, ...order.key],
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
    onSettled: () => queryClient.invalidateQueries({ queryKey: ['payouts'] }),
  });
  const [paying, setPaying] = useState<Owed | null>(null);
  const [recorded, setRecorded] = useState<string | null>(null);
  const usernames = new Map((balances.data ?? []).map((row) => [row.userId, row.username]));

  return (
    <>
      <div className="page-head">
        <h1>Payouts</h1>
      </div>
      <section className="section" aria-labelledby="owed-title">
        <div className="section-head">
          <h2 id="owed-title">Owed to publishers</h2>
          <span className="hint">Earned and not paid out yet, largest first</span>
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
        <ScrollRegion label="Owed to publishers">
          <table className="stack">
            <thead>
              <tr>
                <th scope="col">Publisher</th>
                <th scope="col" className="num">
                  Balance
                </th>
                <th scope="col" className="num">
                  Pending payouts
                </th>
                <th scope="col">
                  <span className="visually-hidden">Actions</span>
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
                  <td data-label="Balance" className="num">
                    {fineMoney(row.balance)}
                  </td>
                  <td data-label="Pending payouts" className="num">
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
                      Record payout<span className="visually-hidden"> to {row.username}</span>
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          {balances.isSuccess && balances.data.length === 0 && <p className="empty">Nothing is owed to any publisher.</p>}
        </ScrollRegion>
      </section>

      <section className="section" aria-labelledby="payouts-title">
        <div className="section-head">
          <h2 id="payouts-title">Payouts</h2>
          <ListOrderControls subject="payouts" placeholder="Search by destination" sorts={PAYOUT_SORTS} paged />
          <label>
            <span className="visually-hidden">Payout status</span>
            <select value={status ?? ''} onChange={(event) => setQuery({ status: event.target.value, page: undefined })}>
              <option value="">Every status</option>
              <option value="pending">Pending</option>
              <option value="paid">Paid</option>
              <option value="cancelled">Cancelled</option>
            </select>
          </label>
        </div>
        {(payouts.error || change.error) && <Notice kind="error">{problem(payouts.error ?? change.error)}</Notice>}
        <ScrollRegion label="Payouts">
          <table className="stack">
            <thead>
              <tr>
                <th scope="col">Recorded</th>
                <th scope="col">Publisher</th>
                <th scope="col">Paid to</th>
                <th scope="col" className="num">
                  Amount
                </th>
                <th scope="col">Status</th>
                <th scope="col">
                  <span className="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {(payouts.data?.items ?? []).map((payout) => {
                const who = usernames.get(payout.userId) ?? `#${payout.userId}`;
                return (
                  <tr key={payout.id}>
                    <td data-label="Recorded">{moment(payout.date)}</td>
                    <td data-label="Publisher">
                      <Link href={`/operator/accounts/${payout.userId}`}>{who}</Link>
                    </td>
                    <td data-label="Paid to" className="wrap">
                      {payout.wallet}
                    </td>
                    <td data-label="Amount" className="num">
                      {fineMoney(payout.amount)}
                    </td>
                    <td data-label="Status">
                      <span className={`payout-status ${payout.status}`}>{payout.status}</span>
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
                            Mark paid<span className="visually-hidden"> payout {payout.id}</span>
                          </button>
                          <button
                            type="button"
                            className="link danger"
                            disabled={change.isPending}
                            onClick={() => change.mutate({ id: payout.id, to: 'cancelled' })}
                          >
                            Cancel<span className="visually-hidden"> payout {payout.id}</span>
                          </button>
                        </>
                      )}
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
          {payouts.data && payouts.data.items.length === 0 && <p className="empty">No payouts.</p>}
        </ScrollRegion>
        <Pager
          page={page}
          pageCount={payouts.data?.pageCount ?? 1}
          label="payouts"
          onPage={(next) => setQuery({ page: String(next) })}
        />
      </section>
    </>
  );
}

function RecordPayout({ owed, onDone, onCancel }: { owed: Owed; onDone: (text: string) => void; onCancel: () => void }) {
  const queryClient = useQueryClient();
  const [amount, setAmount] = useState(amountInput(owed.balance));
  const [wallet, setWallet] = useState('');
  const [status, setStatus] = useState<'pending' | 'paid'>('pending');
  const [local, setLocal] = useState<string | null>(null);
  // The amount read from the field, waiting for the operator to confirm the payout.
  const [pending, setPending] = useState<string | null>(null);
  const record = useMutation({
    mutationFn: (chosen: string) =>
      data(api.POST('/api/admin/payouts', { body: { userId: owed.userId, amount: chosen, wallet, status } })),
    onError: () => setPending(null),
    onSuccess: (payout) => {
      queryClient.invalidateQueries({ queryKey: ['payouts'] });
      queryClient.invalidateQueries({ queryKey: ['ledger', owed.userId] });
      onDone(`Payout of ${fineMoney(payout.amount)} to ${owed.username} recorded (${payout.status}).`);
    },
  });
  const fields = useFieldErrors(record.error);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    fields.submitted();
    const parsed = parseAmount(amount);
    if (!parsed.ok) {
      setLocal(parsed.message);
      return;
    }
    setLocal(null);
    setPending(parsed.amount);
  };
  return (
    <form className="card form-grid" onSubmit={submit} noValidate aria-label={`Payout to ${owed.username}`}>
      <h3>Payout to {owed.username}</h3>
      <p className="hint">
        The amount leaves the balance ({fineMoney(owed.balance)}) now; cancelling a pending payout returns it.
      </p>
      {fields.general && <Notice kind="error">{problem(record.error)}</Notice>}
      <Field
        label="Amount"
        name="payout-amount"
        inputMode="decimal"
        autoComplete="off"
        maxLength={20}
        value={amount}
        error={local ?? fields.errors.amount}
        onChange={(event) => {
          setLocal(null);
          setPending(null);
          fields.edited('amount');
          setAmount(event.target.value);
        }}
      />
      <Field
        label="Paid to"
        name="wallet"
        placeholder="e.g. IBAN DE89 3704 0044 0532 0130 00"
        value={wallet}
        error={fields.errors.wallet}
        onChange={(event) => {
          fields.edited('wallet');
          setWallet(event.target.value);
        }}
      />
      <Field label="Status" name="payout-status">
        <select
          id="field-payout-status"
          value={status}
          onChange={(event) => setStatus(event.target.value === 'paid' ? 'paid' : 'pending')}
        >
          <option value="pending">Pending (to be paid)</option>
          <option value="paid">Paid already</option>
        </select>
      </Field>
      {pending === null ? (
        <FormActions submit="Record payout…" pending={record.isPending} onCancel={onCancel} />
      ) : (
        <ConfirmMove
          text={`Record a ${status} payout of ${money(Number(pending))} to ${owed.username}? It leaves the balance now.`}
          confirm={`Record ${money(Number(pending))}`}
          pending={record.isPending}
          onConfirm={() => record.mutate(pending)}
          onCancel={() => setPending(null)}
        />
      )}
    </form>
  );
}
