import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { api, data, isNotFound, noRetryOnRefusal, problem, useFieldErrors, useFormFields } from '../../api.ts';
import { ConfirmMove, Field, FormActions, ListStatus, Notice } from '../../components/controls.tsx';
import { FigureCells, FigureHeads } from '../../components/figures.tsx';
import { GoalPicker, goalNoun, useGoal } from '../../components/goal-picker.tsx';
import { ListOrderControls, useListOrder } from '../../components/list-order.tsx';
import { Missing } from '../../components/missing.tsx';
import { PeriodPicker, usePeriod } from '../../components/period-picker.tsx';
import { ScrollRegion } from '../../components/scroll-region.tsx';
import { amountInput, count, mailFate, moment, money, parseAmount } from '../../format.ts';
import { Link } from '../../router.tsx';
import { useMe } from '../../session.ts';
import { CAMPAIGN_STATUS } from './advertiser-data.ts';

/** A client's campaigns as the account funding them follows them: what they cost and what they brought. */
const CLIENT_CAMPAIGN_FIGURES = ['clicks', 'money', 'orders', 'cr', 'cpo'] as const;

/** The orders of the list (`sort` of the API and of the address); '' is the API's default, oldest first. */
const CLIENT_SORTS = {
  '': 'Oldest first',
  '-created': 'Newest first',
  username: 'Login A–Z',
  name: 'Name A–Z',
  '-balance': 'Largest balance',
};

/** Client accounts (referrals): advertisers this account created and funds from its own balance. */
export function ClientsPage() {
  const order = useListOrder(CLIENT_SORTS);
  const clients = useQuery({
    queryKey: ['clients', ...order.key],
    queryFn: () => data(api.GET('/api/advertiser/users', { params: { query: { 'per-page': 100, ...order.query } } })),
  });
  const [creating, setCreating] = useState(false);
  const [created, setCreated] = useState<{ username: string; email: string } | null>(null);
  return (
    <>
      <div className="page-head">
        <h1>Clients</h1>
        <button
          type="button"
          className="primary"
          onClick={() => {
            setCreating(!creating);
            setCreated(null);
          }}
          aria-expanded={creating}
        >
          New client
        </button>
      </div>
      <p className="lead">
        Client accounts are advertisers of their own that you fund: move money from your balance to theirs, or back. Each signs in
        with its own login and sees only its own campaigns.
      </p>
      {created && (
        <Notice kind="ok">
          {created.username} is created. {mailFate('An e-mail with a link to choose its password', created.email)}
        </Notice>
      )}
      {creating && (
        <CreateClient
          onDone={() => setCreating(false)}
          onCreated={(client) => {
            setCreating(false);
            setCreated(client);
          }}
        />
      )}
      <div className="toolbar">
        <ListOrderControls subject="clients" placeholder="Login, name or e-mail" sorts={CLIENT_SORTS} />
      </div>
      {clients.error && <Notice kind="error">{problem(clients.error)}</Notice>}
      <ScrollRegion label="Clients">
        <table>
          <caption className="visually-hidden">Your client accounts</caption>
          <thead>
            <tr>
              <th scope="col">Client</th>
              <th scope="col">E-mail</th>
              <th scope="col">Since</th>
              <th scope="col" className="num">
                Balance
              </th>
            </tr>
          </thead>
          <tbody>
            {(clients.data ?? []).map((client) => (
              <tr key={client.id}>
                <th scope="row">
                  <Link href={`/advertiser/clients/${client.id}`}>{client.name || client.username}</Link>
                  {client.name && <span className="sub"> {client.username}</span>}
                </th>
                <td>
                  {client.email}
                  {!client.emailConfirmed && <span className="tag">not confirmed</span>}
                </td>
                <td>{moment(client.date)}</td>
                <td className="num">{money(client.balance)}</td>
              </tr>
            ))}
          </tbody>
        </table>
        <ListStatus query={clients} empty={clients.data?.length === 0}>
          No clients yet.
        </ListStatus>
      </ScrollRegion>
    </>
  );
}

function CreateClient({
  onDone,
  onCreated,
}: {
  onDone: () => void;
  onCreated: (client: { username: string; email: string }) => void;
}) {
  const queryClient = useQueryClient();
  const [form, setForm] = useState({ user: '', email: '', name: '', url: '' });
  const create = useMutation({
    mutationFn: () =>
      data(
        api.POST('/api/advertiser/users', {
          body: {
            user: form.user,
            email: form.email,
            ...(form.name ? { name: form.name } : {}),
            ...(form.url ? { url: form.url } : {}),
          },
        }),
      ),
    onSuccess: (client) => {
      queryClient.invalidateQueries({ queryKey: ['clients'] });
      onCreated(client);
    },
  });
  const { general, field, submit } = useFormFields(form, setForm, create);
  return (
    <form className="card form-grid" onSubmit={submit} noValidate aria-label="New client">
      <h2>New client</h2>
      {general && <Notice kind="error">{problem(create.error)}</Notice>}
      <Field label="Login" autoComplete="off" required hint="3 to 64 letters, digits and _ . @ -" {...field('user')} />
      <Field
        label="E-mail"
        type="email"
        autoComplete="off"
        required
        hint="The password and a link to choose another are sent here."
        {...field('email')}
      />
      <Field label="Name (optional)" {...field('name')} />
      <Field label="Website (optional)" type="url" placeholder="https://" {...field('url')} />
      <FormActions submit="Create client" pending={create.isPending} onCancel={onDone} />
    </form>
  );
}

export function ClientPage({ id }: { id: number }) {
  const period = usePeriod();
  const goal = useGoal();
  const client = useQuery({
    queryKey: ['client', id, period.from, period.to, goal],
    queryFn: () =>
      data(
        api.GET('/api/advertiser/users/{id}', {
          params: { path: { id }, query: { expand: 'campaigns', dateFrom: period.from, dateTo: period.to, targetId: goal } },
        }),
      ),
    retry: noRetryOnRefusal,
  });
  if (isNotFound(client.error)) {
    return (
      <Missing
        what="Client"
        text={`There is no client ${id} in your account.`}
        back="/advertiser/clients"
        backLabel="Back to clients"
      />
    );
  }
  const current = client.data;
  const campaigns = current?.campaigns ?? [];
  return (
    <>
      <p className="crumbs">
        <Link href="/advertiser/clients">Clients</Link> /
      </p>
      <div className="page-head">
        <h1>{current ? current.name || current.username : 'Client'}</h1>
        <div className="pickers">
          <GoalPicker />
          <PeriodPicker />
        </div>
      </div>
      {client.error && <Notice kind="error">{problem(client.error)}</Notice>}
      {current && (
        <>
          <p className="lead">
            Signs in as <strong>{current.username}</strong> · {current.email}
            {!current.emailConfirmed && <span className="tag">not confirmed</span>}
          </p>
          <section className="tiles" aria-label="Account">
            <div className="tile">
              <span className="tile-label">Balance</span>
              <strong data-testid="client-balance">{money(current.balance)}</strong>
            </div>
            <div className="tile">
              <span className="tile-label">Spent in the period</span>
              <strong>{money(campaigns.reduce((sum, campaign) => sum + campaign.money, 0))}</strong>
            </div>
            <div className="tile">
              <span className="tile-label">Clicks in the period</span>
              <strong>{count(campaigns.reduce((sum, campaign) => sum + campaign.clicks, 0))}</strong>
            </div>
          </section>
          <MoveBalance clientId={id} clientName={current.name || current.username} clientBalance={current.balance} />
        </>
      )}
      <section className="card" aria-labelledby="client-campaigns">
        <h2 id="client-campaigns">Campaigns</h2>
        <ScrollRegion label="Campaigns of the client">
          <table>
            <thead>
              <tr>
                <th scope="col">Campaign</th>
                <th scope="col">Status</th>
                <FigureHeads figures={CLIENT_CAMPAIGN_FIGURES} goal={goalNoun(goal)} />
              </tr>
            </thead>
            <tbody>
              {campaigns.map((campaign) => (
                <tr key={campaign.id}>
                  <th scope="row">{campaign.title}</th>
                  <td>
                    <span className={`status s${campaign.status}`}>{CAMPAIGN_STATUS[campaign.status] ?? campaign.status}</span>
                  </td>
                  <FigureCells figures={CLIENT_CAMPAIGN_FIGURES} row={campaign} />
                </tr>
              ))}
            </tbody>
          </table>
          {current && campaigns.length === 0 && <p className="empty">This client has no campaigns yet.</p>}
        </ScrollRegion>
      </section>
    </>
  );
}

/**
 * Money moves both ways through the ledger: to the client from your balance, or back. The amount
 * goes as the decimal string typed (the API keeps 4 fraction digits), never through a float.
 */
function MoveBalance({ clientId, clientName, clientBalance }: { clientId: number; clientName: string; clientBalance: number }) {
  const queryClient = useQueryClient();
  const own = useMe().data?.balance ?? 0;
  const [amount, setAmount] = useState('');
  const [done, setDone] = useState('');
  const [local, setLocal] = useState<string | null>(null);
  // The move read from the field, waiting for the advertiser to confirm it.
  const [pending, setPending] = useState<{ direction: 'to' | 'back'; amount: string } | null>(null);
  const move = useMutation({
    mutationFn: (chosen: { direction: 'to' | 'back'; amount: string }) =>
      data(
        api.PUT('/api/advertiser/users/{id}', {
          params: { path: { id: clientId } },
          body: { balance: chosen.direction === 'to' ? chosen.amount : `-${chosen.amount}` },
        }),
      ),
    onSuccess: (_client, chosen) => {
      setDone(
        chosen.direction === 'to'
          ? `${money(Number(chosen.amount))} moved to ${clientName}.`
          : `${money(Number(chosen.amount))} moved back from ${clientName}.`,
      );
      setAmount('');
      setPending(null);
      queryClient.invalidateQueries({ queryKey: ['client', clientId] });
      queryClient.invalidateQueries({ queryKey: ['clients'] });
      queryClient.invalidateQueries({ queryKey: ['me'] });
    },
    onError: () => setPending(null),
  });
  const { errors, general, edited, submitted } = useFieldErrors(move.error);
  const ask = (direction: 'to' | 'back') => {
    setDone('');
    submitted();
    const parsed = parseAmount(amount);
    if (!parsed.ok) {
      setLocal(parsed.message);
      return;
    }
    setLocal(null);
    setPending({ direction, amount: parsed.amount });
  };
  return (
    <form
      className="card inline-form move"
      noValidate
      aria-label="Move money"
      onSubmit={(event: FormEvent) => {
        event.preventDefault();
        ask('to');
      }}
    >
      <h2>Move money</h2>
      {general && <Notice kind="error">{problem(move.error)}</Notice>}
      {done && <Notice kind="ok">{done}</Notice>}
      <Field
        label="Amount"
        name="balance"
        inputMode="decimal"
        autoComplete="off"
        maxLength={20}
        placeholder={amountInput(100)}
        hint={`You have ${money(own)}; ${clientName} has ${money(clientBalance)}.`}
        value={amount}
        error={local ?? errors.balance}
        onChange={(event) => {
          setAmount(event.target.value);
          setLocal(null);
          setPending(null);
          edited('balance');
        }}
      />
      {pending ? (
        <ConfirmMove
          text={
            pending.direction === 'to'
              ? `Give ${money(Number(pending.amount))} of your balance to ${clientName}?`
              : `Take ${money(Number(pending.amount))} back from ${clientName}?`
          }
          confirm={
            pending.direction === 'to' ? `Give ${money(Number(pending.amount))}` : `Take back ${money(Number(pending.amount))}`
          }
          pending={move.isPending}
          onConfirm={() => move.mutate(pending)}
          onCancel={() => setPending(null)}
        />
      ) : (
        <div className="actions">
          <button type="submit" className="primary">
            Give to client…
          </button>
          <button type="button" onClick={() => ask('back')}>
            Take back…
          </button>
        </div>
      )}
    </form>
  );
}
