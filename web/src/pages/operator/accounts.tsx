import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { api, listPage, problem, useFieldErrors } from '../../api.ts';
import { Field, FormActions, Notice } from '../../components/controls.tsx';
import { ListOrderControls, useListOrder } from '../../components/list-order.tsx';
import { Pager } from '../../components/pager.tsx';
import { ScrollRegion } from '../../components/scroll-region.tsx';
import { fineMoney, mailFate, moment } from '../../format.ts';
import { Link, setQuery, useLocation } from '../../router.tsx';
import './operator.css';

const KINDS = ['advertiser', 'publisher', 'operator'] as const;
type Kind = (typeof KINDS)[number];
const PER_PAGE = 25;

/** The orders of the list (`sort` of the API and of the address); '' is the API's, oldest first. */
const ACCOUNT_SORTS = {
  '': 'Oldest first',
  '-created': 'Newest first',
  username: 'Login A–Z',
  name: 'Name A–Z',
  '-balance': 'Largest balance',
};

export function AccountsPage() {
  const { query } = useLocation();
  const requested = query.get('type');
  const kind = KINDS.find((value) => value === requested);
  const page = Math.max(1, Number(query.get('page')) || 1);
  const order = useListOrder(ACCOUNT_SORTS);
  const accounts = useQuery({
    queryKey: ['accounts', kind, page, ...order.key],
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

  return (
    <>
      <div className="page-head">
        <h1>Accounts</h1>
      </div>
      <div className="toolbar">
        <ListOrderControls subject="accounts" placeholder="Login, name or e-mail" sorts={ACCOUNT_SORTS} paged />
        <label>
          <span className="visually-hidden">Kind of account</span>
          <select value={kind ?? ''} onChange={(event) => setQuery({ type: event.target.value, page: undefined })}>
            <option value="">All kinds</option>
            <option value="advertiser">Advertisers</option>
            <option value="publisher">Publishers</option>
            <option value="operator">Operators</option>
          </select>
        </label>
        <button type="button" className="primary" onClick={() => setCreating(true)} aria-expanded={creating}>
          New account
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
          Account <Link href={`/operator/accounts/${created.id}`}>{created.username}</Link> created.{' '}
          {mailFate('An invitation to choose a password (a link valid 7 days)', created.email)}
        </Notice>
      )}
      {accounts.error && <Notice kind="error">{problem(accounts.error)}</Notice>}
      <ScrollRegion label="Accounts">
        <table className="stack">
          <thead>
            <tr>
              <th scope="col">Username</th>
              <th scope="col">Kind</th>
              <th scope="col">E-mail</th>
              <th scope="col" className="num">
                Balance
              </th>
              <th scope="col">Registered</th>
            </tr>
          </thead>
          <tbody>
            {(accounts.data?.items ?? []).map((account) => (
              <tr key={account.id}>
                <th scope="row">
                  <Link href={`/operator/accounts/${account.id}`}>{account.username}</Link>
                  {account.name && <span className="sub">{account.name}</span>}
                </th>
                <td data-label="Kind">
                  <span className={`tag kind-${account.type}`}>{account.type}</span>
                </td>
                <td data-label="E-mail" className="wrap">
                  {account.email}
                </td>
                <td data-label="Balance" className="num">
                  {fineMoney(account.balance)}
                </td>
                <td data-label="Registered">{moment(account.date)}</td>
              </tr>
            ))}
          </tbody>
        </table>
        {accounts.data && accounts.data.items.length === 0 && <p className="empty">No accounts of this kind.</p>}
      </ScrollRegion>
      <Pager
        page={page}
        pageCount={accounts.data?.pageCount ?? 1}
        label="accounts"
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
      queryClient.invalidateQueries({ queryKey: ['accounts'] });
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
    <form className="card form-grid" onSubmit={submit} noValidate aria-label="New account">
      <h2>New account</h2>
      {fields.general && <Notice kind="error">{problem(create.error)}</Notice>}
      <Field label="Kind" name="type" error={fields.errors.type}>
        <select
          id="field-type"
          value={form.type}
          onChange={(event) => setForm((current) => ({ ...current, type: event.target.value as Kind }))}
        >
          <option value="advertiser">Advertiser</option>
          <option value="publisher">Publisher</option>
          <option value="operator">Operator (staff)</option>
        </select>
      </Field>
      <Field
        label="Username"
        name="username"
        autoComplete="off"
        required
        value={form.username}
        error={fields.errors.username}
        hint="3 to 64 letters, digits and . _ @ -"
        onChange={set('username')}
      />
      <Field
        label="E-mail"
        name="email"
        type="email"
        required
        value={form.email}
        error={fields.errors.email}
        hint="The invitation to choose a password goes here."
        onChange={set('email')}
      />
      <Field label="Name (optional)" name="name" value={form.name} error={fields.errors.name} onChange={set('name')} />
      <FormActions submit="Create and invite" busy="Creating…" pending={create.isPending} onCancel={onCancel} />
    </form>
  );
}
