import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { TFunction } from 'i18next';
import { type FormEvent, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { api, data, FIELD_LIMITS, isNotFound, listPage, problem } from '../../api.ts';
import { type BalanceMove, BalanceMoveForm } from '../../components/balance-move-form.tsx';
import { Field, Notice } from '../../components/controls.tsx';
import { InvitationLinkButton } from '../../components/invitation-link.tsx';
import { Missing } from '../../components/missing.tsx';
import { Pager } from '../../components/pager.tsx';
import { ScrollRegion } from '../../components/scroll-region.tsx';
import { useForgetOnLeave } from '../../components/shown-once.ts';
import { amountInput, currentPlatform, fineMoney, moment, money } from '../../format.ts';
import { Link } from '../../router.tsx';
import './operator.css';
import { ledgerComment } from '../../components/ledger-comment.ts';
import { AccountData } from './account-data.tsx';
import { KIND_TAGS } from './account-kinds.ts';
import { AccountStanding, EditAccount } from './account-standing.tsx';
import { operatorKeys } from './operator-keys.ts';

const LEDGER_PER_PAGE = 20;

const KIND_NAMES = {
  deposit: 'ledger.kind.deposit',
  withdrawal: 'ledger.kind.withdrawal',
  client_transfer: 'ledger.kind.clientTransfer',
  payout: 'ledger.kind.payout',
  payout_cancel: 'ledger.kind.payoutCancel',
  click_charge: 'ledger.kind.clickCharge',
  click_revenue: 'ledger.kind.clickRevenue',
  click_margin: 'ledger.kind.clickMargin',
} as const;
/** A ledger entry's kind in words; a kind this page does not know shows as the server wrote it. */
const kindName = (t: TFunction<'operator'>, kind: string) =>
  kind in KIND_NAMES ? t(KIND_NAMES[kind as keyof typeof KIND_NAMES]) : kind;

const MAIL_STATUS = { queued: 'mailStatus.queued', sent: 'mailStatus.sent', failed: 'mailStatus.failed' } as const;

export function AccountPage({ id }: { id: number }) {
  const { t } = useTranslation('operator');
  const account = useQuery({
    queryKey: operatorKeys.account(id),
    queryFn: () => data(api.GET('/api/admin/users/{id}', { params: { path: { id } } })),
  });
  if (isNotFound(account.error)) {
    return (
      <Missing
        what={t('account.missing')}
        text={t('account.missingText', { id })}
        back="/operator/accounts"
        backLabel={t('account.allAccounts')}
      />
    );
  }
  if (account.error) return <Notice kind="error">{problem(account.error)}</Notice>;
  const user = account.data;
  if (!user) return <p className="loading">{t('account.loading')}</p>;
  return (
    <>
      <p className="crumbs">
        <Link href="/operator/accounts">{t('accounts.title')}</Link> /
      </p>
      <div className="page-head">
        <h1>
          {user.username} <span className={`tag kind-${user.type}`}>{t(KIND_TAGS[user.type])}</span>
          {user.suspendedAt && <span className="tag warning">{t('standing.suspendedTag')}</span>}
        </h1>
        <InvitationLinkButton
          username={user.username}
          issue={() => data(api.POST('/api/admin/users/{id}/invitation-link', { params: { path: { id } } }))}
        />
      </div>
      <div className="account-summary card">
        <div>
          <span className="tile-label">{t('accounts.balance')}</span>
          <strong className="big">{fineMoney(user.balance)}</strong>
        </div>
        <dl className="facts">
          <dt>{t('accounts.email')}</dt>
          <dd className="wrap">
            {user.email} {user.emailConfirmed ? t('account.confirmed') : t('account.notConfirmed')}
          </dd>
          {user.name && (
            <>
              <dt>{t('account.name')}</dt>
              <dd>{user.name}</dd>
            </>
          )}
          <dt>{t('accounts.registered')}</dt>
          <dd>{moment(user.date)}</dd>
          {user.parentId !== null && (
            <>
              <dt>{t('account.clientOf')}</dt>
              <dd>
                <Link href={`/operator/accounts/${user.parentId}`}>{t('account.accountNumber', { id: user.parentId })}</Link>
              </dd>
            </>
          )}
        </dl>
      </div>
      <EditAccount key={user.id} user={user} />
      <AccountStanding user={user} />
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
  const { t } = useTranslation('operator');
  const queryClient = useQueryClient();
  const [comment, setComment] = useState('');
  const amountOf = (move: BalanceMove) => money(Number(move.amount));
  return (
    <BalanceMoveForm
      title={t('balance.title')}
      label={t('accounts.balance')}
      className="card form-grid"
      amount={{
        label: t('balance.amount'),
        name: 'amount',
        field: 'amount',
        hint: t('balance.amountHint', { currency: currentPlatform().currency, example: amountInput(1250.5) }),
      }}
      ask={t('balance.creditAsk')}
      askOut={{ label: t('balance.debitAsk'), className: 'danger' }}
      question={(move) => ({
        text: t(move.direction === 1 ? 'balance.confirmCredit' : 'balance.confirmDebit', { amount: amountOf(move), username }),
        confirm: t(move.direction === 1 ? 'balance.credit' : 'balance.debit', { amount: amountOf(move) }),
      })}
      send={(move) =>
        data(
          api.POST('/api/admin/users/{id}/balance', {
            params: { path: { id } },
            body: { amount: move.direction === 1 ? move.amount : `-${move.amount}`, comment },
          }),
        )
      }
      onMoved={(user) => {
        queryClient.setQueryData(operatorKeys.account(id), user);
        queryClient.invalidateQueries({ queryKey: operatorKeys.ledger.ofAccount(id) });
        queryClient.invalidateQueries({ queryKey: operatorKeys.accounts.all() });
        setComment('');
      }}
      notice={(user, move) =>
        t(move.direction === 1 ? 'balance.credited' : 'balance.debited', { amount: amountOf(move), balance: money(user.balance) })
      }
    >
      {({ errors, edited }) => (
        <Field
          label={t('balance.comment')}
          name="comment"
          value={comment}
          maxLength={FIELD_LIMITS.adminAdjustBalance.comment.maxLength}
          error={errors.comment}
          hint={t('balance.commentHint')}
          onChange={(event) => {
            edited('comment');
            setComment(event.target.value);
          }}
        />
      )}
    </BalanceMoveForm>
  );
}

function Tokens({ id }: { id: number }) {
  const { t } = useTranslation('operator');
  const queryClient = useQueryClient();
  const key = operatorKeys.accountTokens(id);
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
  useForgetOnLeave(issue.reset);
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
      <h2 id="tokens-title">{t('tokens.title')}</h2>
      <form className="inline-form" onSubmit={submit} noValidate aria-label={t('tokens.issueForm')}>
        <Field
          label={t('tokens.name')}
          name="token-name"
          placeholder={t('tokens.namePlaceholder')}
          value={name}
          onChange={(event) => setName(event.target.value)}
        />
        <button type="submit" disabled={issue.isPending}>
          {t('tokens.issue')}
        </button>
      </form>
      {issue.data && (
        <div className="notice ok" role="status">
          <p>{t('tokens.issued', { name: issue.data.name || `#${issue.data.id}` })}</p>
          <div className="copy-row">
            <code className="secret">{issue.data.token}</code>
            <button type="button" onClick={() => copy(issue.data.token)}>
              {copied ? t('tokens.copied') : t('tokens.copy')}
            </button>
          </div>
        </div>
      )}
      {(tokens.error || issue.error || revoke.error) && (
        <Notice kind="error">{problem(tokens.error ?? issue.error ?? revoke.error)}</Notice>
      )}
      {tokens.isSuccess && active.length === 0 && <p className="empty">{t('tokens.empty')}</p>}
      <ul className="plain-list">
        {active.map((token) => (
          <li key={token.id}>
            <span>
              <strong>{token.name || t('tokens.number', { id: token.id })}</strong>
              <span className="sub">{t('tokens.issuedAt', { date: moment(token.created) })}</span>
            </span>
            <button type="button" className="link danger" onClick={() => revoke.mutate(token.id)}>
              {t('tokens.revoke')}
              <span className="visually-hidden"> {token.name || t('tokens.number', { id: token.id })}</span>
            </button>
          </li>
        ))}
      </ul>
    </section>
  );
}

function Ledger({ id }: { id: number }) {
  const { t } = useTranslation('operator');
  const [page, setPage] = useState(1);
  const ledger = useQuery({
    queryKey: operatorKeys.ledger.page(id, page),
    queryFn: () =>
      listPage(
        api.GET('/api/admin/users/{id}/ledger', { params: { path: { id }, query: { page, 'per-page': LEDGER_PER_PAGE } } }),
      ),
    placeholderData: (previous) => previous,
  });
  return (
    <section className="section" aria-labelledby="ledger-title">
      <div className="section-head">
        <h2 id="ledger-title">{t('ledger.title')}</h2>
        {ledger.data && <span className="hint">{t('ledger.entries', { count: ledger.data.total })}</span>}
      </div>
      {ledger.error && <Notice kind="error">{problem(ledger.error)}</Notice>}
      <ScrollRegion label={t('ledger.title')}>
        <table className="stack">
          <thead>
            <tr>
              <th scope="col">{t('ledger.date')}</th>
              <th scope="col">{t('ledger.what')}</th>
              <th scope="col" className="num">
                {t('ledger.amount')}
              </th>
              <th scope="col" className="num">
                {t('ledger.balanceAfter')}
              </th>
              <th scope="col">{t('ledger.comment')}</th>
            </tr>
          </thead>
          <tbody>
            {(ledger.data?.items ?? []).map((entry) => (
              <tr key={entry.id}>
                <td data-label={t('ledger.date')}>{moment(entry.date)}</td>
                <td data-label={t('ledger.what')}>
                  {kindName(t, entry.kind)}
                  {entry.counterpartyId !== null && (
                    <span className="sub">
                      {t('ledger.with')} <Link href={`/operator/accounts/${entry.counterpartyId}`}>#{entry.counterpartyId}</Link>
                    </span>
                  )}
                </td>
                <td data-label={t('ledger.amount')} className={`num ${entry.amount < 0 ? 'minus' : 'plus'}`}>
                  {entry.amount > 0 ? '+' : ''}
                  {fineMoney(entry.amount)}
                </td>
                <td data-label={t('ledger.balanceAfter')} className="num">
                  {fineMoney(entry.balance)}
                </td>
                <td data-label={t('ledger.comment')}>{ledgerComment(entry.comment)}</td>
              </tr>
            ))}
          </tbody>
        </table>
        {ledger.data && ledger.data.items.length === 0 && <p className="empty">{t('ledger.empty')}</p>}
      </ScrollRegion>
      <Pager page={page} pageCount={ledger.data?.pageCount ?? 1} label={t('ledger.pagerLabel')} onPage={setPage} />
    </section>
  );
}

function Mails({ id }: { id: number }) {
  const { t } = useTranslation('operator');
  const mails = useQuery({
    queryKey: operatorKeys.outbox.ofAccount(id),
    queryFn: () => data(api.GET('/api/admin/outbox', { params: { query: { userId: id, 'per-page': 10 } } })),
  });
  return (
    <section className="section" aria-labelledby="mails-title">
      <h2 id="mails-title">{t('mails.title')}</h2>
      {mails.error && <Notice kind="error">{problem(mails.error)}</Notice>}
      {mails.isSuccess && mails.data.length === 0 && <p className="empty">{t('mails.empty')}</p>}
      <ul className="plain-list">
        {(mails.data ?? []).map((mail) => (
          <li key={mail.id}>
            <span>
              <Link href={`/operator/outbox/${mail.id}`}>{mail.subject}</Link>
              <span className="sub">{t('mails.toAt', { to: mail.to, date: moment(mail.date) })}</span>
            </span>
            <span className={`mail-status ${mail.status}`}>{t(MAIL_STATUS[mail.status])}</span>
          </li>
        ))}
      </ul>
    </section>
  );
}
