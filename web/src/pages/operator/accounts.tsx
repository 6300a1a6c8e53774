import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { Trans, useTranslation } from 'react-i18next';
import { api, listPage, problem, useFieldErrors } from '../../api.ts';
import { Field, FormActions, Notice } from '../../components/controls.tsx';
import { ListOrderControls, useListOrder } from '../../components/list-order.tsx';
import { Pager } from '../../components/pager.tsx';
import { ScrollRegion } from '../../components/scroll-region.tsx';
import { currentPlatform, fineMoney, moment } from '../../format.ts';
import { Link, setQuery, useLocation } from '../../router.tsx';
import { KIND_TAGS } from './account-kinds.ts';
import './operator.css';
import { operatorKeys } from './operator-keys.ts';

const KINDS = ['advertiser', 'publisher', 'operator'] as const;
type Kind = (typeof KINDS)[number];
const PER_PAGE = 25;

/** The orders of the list (`sort` of the API and of the address); '' is the API's, oldest first. */
const ACCOUNT_SORTS = {
  '': 'accounts.sort.oldest',
  '-created': 'accounts.sort.newest',
  username: 'accounts.sort.login',
  name: 'accounts.sort.name',
  '-balance': 'accounts.sort.balance',
} as const;

export function AccountsPage() {
  const { t } = useTranslation('operator');
  const { query } = useLocation();
  const requested = query.get('type');
  const kind = KINDS.find((value) => value === requested);
  const page = Math.max(1, Number(query.get('page')) || 1);
  const order = useListOrder(ACCOUNT_SORTS);
  const accounts = useQuery({
    queryKey: operatorKeys.accounts.list(kind, page, order.key),
    queryFn: () =>
      listPage(
        api.GET('/api/admin/users', {
          params: {
            query: {
              ...(kind ? { type: kind } : {}),
              ...order.query,
              page,
              'per-page': PER_PAGE,
            },
          },
        }),
      ),
  });
  const [creating, setCreating] = useState(false);
  const [created, setCreated] = useState<{ id: number; username: string; email: string } | null>(null);
  const sorts = Object.fromEntries(Object.entries(ACCOUNT_SORTS).map(([sort, label]) => [sort, t(label)])) as Record<
    keyof typeof ACCOUNT_SORTS,
    string
  >;

  return (
    <>
      <div className="page-head">
        <h1>{t('accounts.title')}</h1>
      </div>
      <div className="toolbar">
        <ListOrderControls subject={t('accounts.subject')} placeholder={t('accounts.searchPlaceholder')} sorts={sorts} paged />
        <label>
          <span className="visually-hidden">{t('accounts.kindFilter')}</span>
          <select value={kind ?? ''} onChange={(event) => setQuery({ type: event.target.value, page: undefined })}>
            <option value="">{t('accounts.allKinds')}</option>
            <option value="advertiser">{t('accounts.advertisers')}</option>
            <option value="publisher">{t('accounts.publishers')}</option>
            <option value="operator">{t('accounts.operators')}</option>
          </select>
        </label>
        <button type="button" className="primary" onClick={() => setCreating(true)} aria-expanded={creating}>
          {t('accounts.new')}
        </button>
      </div>
      {creating && (
        <CreateAccount
          onDone={(account) => {
            setCreating(false);
            setCreated(account);
          }}
          onCancel={() => setCreating(false)}
        />
      )}
      {created && (
        <Notice kind="ok">
          <Trans
            t={t}
            i18nKey="accounts.created"
            // `link` is a void HTML element to react-i18next's parser: `<link>…</link>` would lose its words,
            // so the catalogue writes `<link />` and the login is the link's own text.
            components={{ link: <Link href={`/operator/accounts/${created.id}`}>{created.username}</Link> }}
          />{' '}
          {currentPlatform().emailDelivery
            ? t('accounts.invitationSent', { email: created.email })
            : t('accounts.invitationQueued', { email: created.email })}
        </Notice>
      )}
      {accounts.error && <Notice kind="error">{problem(accounts.error)}</Notice>}
      <ScrollRegion label={t('accounts.title')}>
        <table className="stack">
          <thead>
            <tr>
              <th scope="col">{t('accounts.username')}</th>
              <th scope="col">{t('accounts.kind')}</th>
              <th scope="col">{t('accounts.email')}</th>
              <th scope="col" className="num">
                {t('accounts.balance')}
              </th>
              <th scope="col">{t('accounts.registered')}</th>
            </tr>
          </thead>
          <tbody>
            {(accounts.data?.items ?? []).map((account) => (
              <tr key={account.id}>
                <th scope="row">
                  <Link href={`/operator/accounts/${account.id}`}>{account.username}</Link>
                  {account.name && <span className="sub">{account.name}</span>}
                </th>
                <td data-label={t('accounts.kind')}>
                  <span className={`tag kind-${account.type}`}>{t(KIND_TAGS[account.type])}</span>
                </td>
                <td data-label={t('accounts.email')} className="wrap">
                  {account.email}
                </td>
                <td data-label={t('accounts.balance')} className="num">
                  {fineMoney(account.balance)}
                </td>
                <td data-label={t('accounts.registered')}>{moment(account.date)}</td>
              </tr>
            ))}
          </tbody>
        </table>
        {accounts.data && accounts.data.items.length === 0 && <p className="empty">{t('accounts.empty')}</p>}
      </ScrollRegion>
      <Pager
        page={page}
        pageCount={accounts.data?.pageCount ?? 1}
        label={t('accounts.subject')}
        onPage={(next) => setQuery({ page: String(next) })}
      />
    </>
  );
}

function CreateAccount({
  onDone,
  onCancel,
}: {
  onDone: (account: { id: number; username: string; email: string }) => void;
  onCancel: () => void;
}) {
  const { t } = useTranslation('operator');
  const queryClient = useQueryClient();
  const [form, setForm] = useState({ type: 'advertiser' as Kind, username: '', email: '', name: '' });
  const create = useMutation({
    mutationFn: async () => {
      const { data } = await api.POST('/api/admin/users', {
        body: { type: form.type, username: form.username, email: form.email, ...(form.name ? { name: form.name } : {}) },
      });
      if (!data) throw new Error('no account in the answer');
      return data;
    },
    onSuccess: (account) => {
      queryClient.invalidateQueries({ queryKey: operatorKeys.accounts.all() });
      onDone(account);
    },
  });
  const fields = useFieldErrors(create.error);
  const set = (name: 'username' | 'email' | 'name') => (event: { target: { value: string } }) => {
    fields.edited(name);
    setForm((current) => ({ ...current, [name]: event.target.value }));
  };
  const submit = (event: FormEvent) => {
    event.preventDefault();
    fields.submitted();
    create.mutate();
  };
  return (
    <form className="card form-grid" onSubmit={submit} noValidate aria-label={t('accounts.new')}>
      <h2>{t('accounts.new')}</h2>
      {fields.general && <Notice kind="error">{problem(create.error)}</Notice>}
      <Field label={t('accounts.kind')} name="type" error={fields.errors.type}>
        <select
          id="field-type"
          value={form.type}
          onChange={(event) => setForm((current) => ({ ...current, type: event.target.value as Kind }))}
        >
          <option value="advertiser">{t('accounts.create.advertiser')}</option>
          <option value="publisher">{t('accounts.create.publisher')}</option>
          <option value="operator">{t('accounts.create.operator')}</option>
        </select>
      </Field>
      <Field
        label={t('accounts.username')}
        name="username"
        autoComplete="off"
        required
        value={form.username}
        error={fields.errors.username}
        hint={t('accounts.create.usernameHint')}
        onChange={set('username')}
      />
      <Field
        label={t('accounts.email')}
        name="email"
        type="email"
        required
        value={form.email}
        error={fields.errors.email}
        hint={t('accounts.create.emailHint')}
        onChange={set('email')}
      />
      <Field label={t('accounts.create.name')} name="name" value={form.name} error={fields.errors.name} onChange={set('name')} />
      <FormActions
        submit={t('accounts.create.submit')}
        busy={t('accounts.create.busy')}
        pending={create.isPending}
        onCancel={onCancel}
      />
    </form>
  );
}
