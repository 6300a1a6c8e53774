import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { api, data, FIELD_LIMITS, isNotFound, listPage, problem, useFieldErrors } from '../../api.ts';
import { ConfirmMove, Field, Notice } from '../../components/controls.tsx';
import { Missing } from '../../components/missing.tsx';
import { Pager } from '../../components/pager.tsx';
import { ScrollRegion } from '../../components/scroll-region.tsx';
import { amountInput, currentPlatform, fineMoney, moment, money, parseAmount } from '../../format.ts';
import { Link } from '../../router.tsx';
import './operator.css';
import { AccountData } from './account-data.tsx';

const LEDGER_PER_PAGE = 20;

const KIND_NAMES: Record<string, string> = {
  deposit: 'Credit',
  withdrawal: 'Debit',
  client_transfer: 'Client transfer',
  payout: 'Payout',
  payout_cancel: 'Payout cancelled',
  click_charge: 'Clicks',
  click_revenue: 'Click income',
  click_margin: 'Click margin',
};

export function AccountPage({ id }: { id: number }) {
  const account = useQuery({
    queryKey: ['account', id],
    queryFn: () => data(api.GET('/api/admin/users/{id}', { params: { path: { id } } })),
  });
  if (isNotFound(account.error)) {
    return <Missing what="Account" text={`There is no account #${id}.`} back="/operator/accounts" backLabel="All accounts" />;
  }
  if (account.error) return <Notice kind="error">{problem(account.error)}</Notice>;
  const user = account.data;
  if (!user) return <p className="loading">Loading…</p>;
  return (
    <>
      <p className="crumbs">
        <Link href="/operator/accounts">Accounts</Link> /
      </p>
      <div className="page-head">
        <h1>
          {user.username} <span className={`tag kind-${user.type}`}>{user.type}</span>
        </h1>
      </div>
      <div className="account-summary card">
        <div>
          <span className="tile-label">Balance</span>
          <strong className="big">{fineMoney(user.balance)}</strong>
        </div>
        <dl className="facts">
          <dt>E-mail</dt>
          <dd className="wrap">
            {user.email} {user.emailConfirmed ? '(confirmed)' : '(not confirmed)'}
          </dd>
          {user.name && (
            <>
              <dt>Name</dt>
              <dd>{user.name}</dd>
            </>
          )}
          <dt>Registered</dt>
          <dd>{moment(user.date)}</dd>
          {user.parentId !== null && (
            <>
              <dt>Client of</dt>
              <dd>
                <Link href={`/operator/accounts/${user.parentId}`}>account #{user.parentId}</Link>
              </dd>
            </>
          )}
        </dl>
      </div>
      <div className="columns">
        <BalanceForm id={id} username={user.username} />
        <Tokens id={id} />
      </div>
      <Ledger id={id} />
      <Mails id={id} />
      <AccountData id={id} username={user.username} />
    </>
  );
}

function BalanceForm({ id, username }: { id: number; username: string }) {
  const queryClient = useQueryClient();
  const [amount, setAmount] = useState('');
  const [comment, setComment] = useState('');
  const [local, setLocal] = useState<string | null>(null);
  // The move read from the field, waiting for the operator to confirm it.
  const [pending, setPending] = useState<{ direction: 1 | -1; amount: string } | null>(null);
  const move = useMutation({
    mutationFn: (chosen: { direction: 1 | -1; amount: string }) =>
      // The amount goes as a decimal string: no float ever carries money.
      data(
        api.POST('/api/admin/users/{id}/balance', {
          params: { path: { id } },
          body: { amount: chosen.direction === 1 ? chosen.amount : `-${chosen.amount}`, comment },
        }),
      ),
    onSuccess: (user) => {
      queryClient.setQueryData(['account', id], user);
      queryClient.invalidateQueries({ queryKey: ['ledger', id] });
      queryClient.invalidateQueries({ queryKey: ['accounts'] });
      setAmount('');
      setComment('');
      setPending(null);
    },
    onError: () => setPending(null),
  });
  const fields = useFieldErrors(move.error);
  const ask = (direction: 1 | -1) => (event?: FormEvent) => {
    event?.preventDefault();
    fields.submitted();
    move.reset();
    const parsed = parseAmount(amount);
    if (!parsed.ok) {
      setLocal(parsed.message);
      return;
    }
    setLocal(null);
    setPending({ direction, amount: parsed.amount });
  };
  const amountError = local ?? fields.errors.amount;
  return (
    <form className="card form-grid" onSubmit={ask(1)} noValidate aria-label="Balance">
      <h2>Credit or debit</h2>
      {fields.general && <Notice kind="error">{problem(move.error)}</Notice>}
      {move.isSuccess && (
        <Notice kind="ok">
          {move.variables.direction === 1 ? 'Credited' : 'Debited'} {money(Number(move.variables.amount))}. The balance is now{' '}
          {money(move.data.balance)}.
        </Notice>
      )}
      <Field
        label="Amount"
        name="amount"
        inputMode="decimal"
        autoComplete="off"
        maxLength={20}
        value={amount}
        error={amountError}
        hint={`In ${currentPlatform().currency}, written as you would ${amountInput(1250.5)}.`}
        onChange={(event) => {
          setLocal(null);
          setPending(null);
          fields.edited('amount');
          setAmount(event.target.value);
        }}
      />
      <Field
        label="Comment"
        name="comment"
        value={comment}
        maxLength={FIELD_LIMITS.adminAdjustBalance.comment.maxLength}
        error={fields.errors.comment}
        hint="Kept in the ledger, e.g. “bank transfer 2026-11-23”."
        onChange={(event) => {
          fields.edited('comment');
          setComment(event.target.value);
        }}
      />
      {pending ? (
        <ConfirmMove
          text={`${pending.direction === 1 ? 'Credit' : 'Debit'} ${money(Number(pending.amount))} ${pending.direction === 1 ? 'to' : 'from'} ${username}?`}
          confirm={`${pending.direction === 1 ? 'Credit' : 'Debit'} ${money(Number(pending.amount))}`}
          pending={move.isPending}
          onConfirm={() => move.mutate(pending)}
          onCancel={() => setPending(null)}
        />
      ) : (
        <div className="actions">
          <button type="submit" className="primary">
            Credit…
          </button>
          <button type="button" className="danger" onClick={() => ask(-1)()}>
            Debit…
          </button>
        </div>
      )}
    </form>
  );
}

function Tokens({ id }: { id: number }) {
  const queryClient = useQueryClient();
  const key = ['account-tokens', id];
  const tokens = useQuery({
    queryKey: key,
    queryFn: () => data(api.GET('/api/admin/users/{id}/tokens', { params: { path: { id }, query: { 'per-page': 100 } } })),
  });
  const [name, setName] = useState('');
  const [copied, setCopied] = useState(false);
  const issue = useMutation({
    mutationFn: async () => {
      const issued = await data(api.POST('/api/admin/users/{id}/tokens', { params: { path: { id } }, body: { name } }));
      return { ...issued, name };
    },
    onSuccess: () => {
      setName('');
      setCopied(false);
      queryClient.invalidateQueries({ queryKey: key });
    },
  });
  const revoke = useMutation({
    mutationFn: (tokenId: number) => api.DELETE('/api/admin/tokens/{id}', { params: { path: { id: tokenId } } }),
    onSettled: () => queryClient.invalidateQueries({ queryKey: key }),
  });
  const copy = async (value: string) => {
    try {
      await navigator.clipboard.writeText(value);
      setCopied(true);
    } catch {
      setCopied(false);
    }
  };
  const submit = (event: FormEvent) => {
    event.preventDefault();
    issue.mutate();
  };
  const active = (tokens.data ?? []).filter((token) => token.revoked === null);
  return (
    <section className="card" aria-labelledby="tokens-title">
      <h2 id="tokens-title">API tokens</h2>
      <form className="inline-form" onSubmit={submit} noValidate aria-label="Issue a token">
        <Field
          label="Name of the new token"
          name="token-name"
          placeholder="e.g. reporting script"
          value={name}
          onChange={(event) => setName(event.target.value)}
        />
        <button type="submit" disabled={issue.isPending}>
          Issue token
        </button>
      </form>
      {issue.data && (
        <div className="notice ok" role="status">
          <p>Token “{issue.data.name || `#${issue.data.id}`}” issued. Copy it now: it is not shown again.</p>
          <div className="copy-row">
            <code className="secret">{issue.data.token}</code>
            <button type="button" onClick={() => copy(issue.data.token)}>
              {copied ? 'Copied' : 'Copy'}
            </button>
          </div>
        </div>
      )}
      {(tokens.error || issue.error || revoke.error) && (
        <Notice kind="error">{problem(tokens.error ?? issue.error ?? revoke.error)}</Notice>
      )}
      {tokens.isSuccess && active.length === 0 && <p className="empty">No valid token.</p>}
      <ul className="plain-list">
        {active.map((token) => (
          <li key={token.id}>
            <span>
              <strong>{token.name || `Token #${token.id}`}</strong>
              <span className="sub">issued {moment(token.created)}</span>
            </span>
            <button type="button" className="link danger" onClick={() => revoke.mutate(token.id)}>
              Revoke<span className="visually-hidden"> {token.name || `token ${token.id}`}</span>
            </button>
          </li>
        ))}
      </ul>
    </section>
  );
}

function Ledger({ id }: { id: number }) {
  const [page, setPage] = useState(1);
  const ledger = useQuery({
    queryKey: ['ledger', id, page],
    queryFn: () =>
      listPage(
        api.GET('/api/admin/users/{id}/ledger', { params: { path: { id }, query: { page, 'per-page': LEDGER_PER_PAGE } } }),
      ),
    placeholderData: (previous) => previous,
  });
  return (
    <section className="section" aria-labelledby="ledger-title">
      <div className="section-head">
        <h2 id="ledger-title">Ledger</h2>
        {ledger.data && (
          <span className="hint">{ledger.data.total === 1 ? '1 entry' : `${ledger.data.total} entries`}, newest first</span>
        )}
      </div>
      {ledger.error && <Notice kind="error">{problem(ledger.error)}</Notice>}
      <ScrollRegion label="Ledger">
        <table className="stack">
          <thead>
            <tr>
              <th scope="col">Date</th>
              <th scope="col">What</th>
              <th scope="col" className="num">
                Amount
              </th>
              <th scope="col" className="num">
                Balance after
              </th>
              <th scope="col">Comment</th>
            </tr>
          </thead>
          <tbody>
            {(ledger.data?.items ?? []).map((entry) => (
              <tr key={entry.id}>
                <td data-label="Date">{moment(entry.date)}</td>
                <td data-label="What">
                  {KIND_NAMES[entry.kind] ?? entry.kind}
                  {entry.counterpartyId !== null && (
                    <span className="sub">
                      with <Link href={`/operator/accounts/${entry.counterpartyId}`}>#{entry.counterpartyId}</Link>
                    </span>
                  )}
                </td>
                <td data-label="Amount" className={`num ${entry.amount < 0 ? 'minus' : 'plus'}`}>
                  {entry.amount > 0 ? '+' : ''}
                  {fineMoney(entry.amount)}
                </td>
                <td data-label="Balance after" className="num">
                  {fineMoney(entry.balance)}
                </td>
                <td data-label="Comment">{entry.comment}</td>
              </tr>
            ))}
          </tbody>
        </table>
        {ledger.data && ledger.data.items.length === 0 && <p className="empty">No money has moved yet.</p>}
      </ScrollRegion>
      <Pager page={page} pageCount={ledger.data?.pageCount ?? 1} label="ledger" onPage={setPage} />
    </section>
  );
}

function Mails({ id }: { id: number }) {
  const mails = useQuery({
    queryKey: ['outbox', 'account', id],
    queryFn: () => data(api.GET('/api/admin/outbox', { params: { query: { userId: id, 'per-page': 10 } } })),
  });
  return (
    <section className="section" aria-labelledby="mails-title">
      <h2 id="mails-title">E-mails</h2>
      {mails.error && <Notice kind="error">{problem(mails.error)}</Notice>}
      {mails.isSuccess && mails.data.length === 0 && <p className="empty">No e-mail about this account.</p>}
      <ul className="plain-list">
        {(mails.data ?? []).map((mail) => (
          <li key={mail.id}>
            <span>
              <Link href={`/operator/outbox/${mail.id}`}>{mail.subject}</Link>
              <span className="sub">
                to {mail.to}, {moment(mail.date)}
              </span>
            </span>
            <span className={`mail-status ${mail.status}`}>{mail.status}</span>
          </li>
        ))}
      </ul>
    </section>
  );
}
