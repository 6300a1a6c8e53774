import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Trans, useTranslation } from 'react-i18next';
import { api, data, isNotFound, noRetryOnRefusal, problem, useFormFields } from '../../api.ts';
import { type BalanceMove, BalanceMoveForm } from '../../components/balance-move-form.tsx';
import { Field, FormActions, ListStatus, Notice } from '../../components/controls.tsx';
import { FigureCells, FigureHeads } from '../../components/figures.tsx';
import { GoalPicker, goalNoun, useGoal } from '../../components/goal-picker.tsx';
import { InvitationLinkButton } from '../../components/invitation-link.tsx';
import { ListOrderControls, useListOrder } from '../../components/list-order.tsx';
import { Missing } from '../../components/missing.tsx';
import { PeriodPicker, usePeriod } from '../../components/period-picker.tsx';
import { ScrollRegion } from '../../components/scroll-region.tsx';
import { amountInput, count, currentPlatform, moment, money } from '../../format.ts';
import { appKeys } from '../../query-keys.ts';
import { Link } from '../../router.tsx';
import { useMe } from '../../session.ts';
import { CAMPAIGN_STATUS, statusName, translateNames } from './advertiser-data.ts';
import { advertiserKeys } from './advertiser-keys.ts';

/** A client's campaigns as the account funding them follows them: what they cost and what they brought. */
const CLIENT_CAMPAIGN_FIGURES = ['clicks', 'money', 'orders', 'cr', 'cpo'] as const;

/** The orders of the list (`sort` of the API and of the address); '' is the API's default, oldest first. */
const CLIENT_SORTS = {
  '': 'sort.oldest',
  '-created': 'sort.newest',
  username: 'clients.sort.loginAz',
  name: 'clients.sort.nameAz',
  '-balance': 'clients.sort.balance',
} as const;

/** Client accounts (referrals): advertisers this account created and funds from its own balance. */
export function ClientsPage() {
  const { t } = useTranslation('advertiser');
  const order = useListOrder(CLIENT_SORTS);
  const clients = useQuery({
    queryKey: advertiserKeys.clients.list(order.key),
    queryFn: () => data(api.GET('/api/advertiser/users', { params: { query: { 'per-page': 100, ...order.query } } })),
  });
  const [creating, setCreating] = useState(false);
  const [created, setCreated] = useState<{ username: string; email: string } | null>(null);
  return (
    <>
      <div className="page-head">
        <h1>{t('clients.title')}</h1>
        <button
          type="button"
          className="primary"
          onClick={() => {
            setCreating(!creating);
            setCreated(null);
          }}
          aria-expanded={creating}
        >
          {t('clients.new')}
        </button>
      </div>
      <p className="lead">{t('clients.lead')}</p>
      {created && (
        <Notice kind="ok">
          {t('clients.created', { username: created.username })}{' '}
          {currentPlatform().emailDelivery
            ? t('clients.createdMailSent', { email: created.email })
            : t('clients.createdMailQueued', { email: created.email })}
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
        <ListOrderControls
          subject={t('clients.subject')}
          placeholder={t('clients.search')}
          sorts={translateNames(CLIENT_SORTS, t)}
        />
      </div>
      {clients.error && <Notice kind="error">{problem(clients.error)}</Notice>}
      <ScrollRegion label={t('clients.title')}>
        <table>
          <caption className="visually-hidden">{t('clients.caption')}</caption>
          <thead>
            <tr>
              <th scope="col">{t('clients.client')}</th>
              <th scope="col">{t('clients.email')}</th>
              <th scope="col">{t('clients.since')}</th>
              <th scope="col" className="num">
                {t('figure.balance')}
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
                  {!client.emailConfirmed && <span className="tag">{t('clients.notConfirmed')}</span>}
                </td>
                <td>{moment(client.date)}</td>
                <td className="num">{money(client.balance)}</td>
              </tr>
            ))}
          </tbody>
        </table>
        <ListStatus query={clients} empty={clients.data?.length === 0}>
          {t('clients.empty')}
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
  const { t } = useTranslation('advertiser');
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
      queryClient.invalidateQueries({ queryKey: advertiserKeys.clients.all() });
      onCreated(client);
    },
  });
  const { general, field, submit } = useFormFields(form, setForm, create);
  return (
    <form className="card form-grid" onSubmit={submit} noValidate aria-label={t('clients.new')}>
      <h2>{t('clients.new')}</h2>
      {general && <Notice kind="error">{problem(create.error)}</Notice>}
      <Field label={t('clients.form.login')} autoComplete="off" required hint={t('clients.form.loginHint')} {...field('user')} />
      <Field
        label={t('clients.email')}
        type="email"
        autoComplete="off"
        required
        hint={t('clients.form.emailHint')}
        {...field('email')}
      />
      <Field label={t('clients.form.name')} {...field('name')} />
      <Field label={t('clients.form.website')} type="url" placeholder="https://" {...field('url')} />
      <FormActions submit={t('clients.form.submit')} pending={create.isPending} onCancel={onDone} />
    </form>
  );
}

export function ClientPage({ id }: { id: number }) {
  const { t } = useTranslation('advertiser');
  const period = usePeriod();
  const goal = useGoal();
  const client = useQuery({
    queryKey: advertiserKeys.client.figures(id, period, goal),
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
        what={t('clients.client')}
        text={t('client.notFound', { id })}
        back="/advertiser/clients"
        backLabel={t('client.back')}
      />
    );
  }
  const current = client.data;
  const campaigns = current?.campaigns ?? [];
  return (
    <>
      <p className="crumbs">
        <Link href="/advertiser/clients">{t('clients.title')}</Link> /
      </p>
      <div className="page-head">
        <h1>{current ? current.name || current.username : t('clients.client')}</h1>
        <div className="pickers">
          <GoalPicker />
          <PeriodPicker />
        </div>
      </div>
      {client.error && <Notice kind="error">{problem(client.error)}</Notice>}
      {current && (
        <>
          <p className="lead">
            <Trans t={t} i18nKey="client.signsInAs" values={{ username: current.username }} components={{ strong: <strong /> }} />{' '}
            · {current.email}
            {!current.emailConfirmed && <span className="tag">{t('clients.notConfirmed')}</span>}
          </p>
          <InvitationLinkButton
            username={current.username}
            issue={() => data(api.POST('/api/advertiser/users/{id}/invitation-link', { params: { path: { id } } }))}
          />
          <section className="tiles" aria-label={t('client.account')}>
            <div className="tile">
              <span className="tile-label">{t('figure.balance')}</span>
              <strong data-testid="client-balance">{money(current.balance)}</strong>
            </div>
            <div className="tile">
              <span className="tile-label">{t('client.spent')}</span>
              <strong>{money(campaigns.reduce((sum, campaign) => sum + campaign.money, 0))}</strong>
            </div>
            <div className="tile">
              <span className="tile-label">{t('client.clicks')}</span>
              <strong>{count(campaigns.reduce((sum, campaign) => sum + campaign.clicks, 0))}</strong>
            </div>
          </section>
          <MoveBalance clientId={id} clientName={current.name || current.username} clientBalance={current.balance} />
        </>
      )}
      <section className="card" aria-labelledby="client-campaigns">
        <h2 id="client-campaigns">{t('client.campaigns')}</h2>
        <ScrollRegion label={t('client.campaignsTable')}>
          <table>
            <thead>
              <tr>
                <th scope="col">{t('client.campaign')}</th>
                <th scope="col">{t('figure.status')}</th>
                <FigureHeads figures={CLIENT_CAMPAIGN_FIGURES} goal={goalNoun(goal)} />
              </tr>
            </thead>
            <tbody>
              {campaigns.map((campaign) => (
                <tr key={campaign.id}>
                  <th scope="row">{campaign.title}</th>
                  <td>
                    <span className={`status s${campaign.status}`}>{statusName(t, CAMPAIGN_STATUS, campaign.status)}</span>
                  </td>
                  <FigureCells figures={CLIENT_CAMPAIGN_FIGURES} row={campaign} />
                </tr>
              ))}
            </tbody>
          </table>
          {current && campaigns.length === 0 && <p className="empty">{t('client.noCampaigns')}</p>}
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
  const { t } = useTranslation('advertiser');
  const queryClient = useQueryClient();
  const own = useMe().data?.balance ?? 0;
  const amountOf = (move: BalanceMove) => money(Number(move.amount));
  return (
    <BalanceMoveForm
      title={t('move.title')}
      className="card inline-form move"
      amount={{
        label: t('move.amount'),
        name: 'balance',
        field: 'balance',
        placeholder: amountInput(100),
        hint: t('move.hint', { own: money(own), name: clientName, theirs: money(clientBalance) }),
      }}
      ask={t('move.give')}
      askOut={{ label: t('move.take') }}
      question={(move) => ({
        text: t(move.direction === 1 ? 'move.askGive' : 'move.askTake', { amount: amountOf(move), name: clientName }),
        confirm: t(move.direction === 1 ? 'move.confirmGive' : 'move.confirmTake', { amount: amountOf(move) }),
      })}
      send={(move) =>
        data(
          api.PUT('/api/advertiser/users/{id}', {
            params: { path: { id: clientId } },
            body: { balance: move.direction === 1 ? move.amount : `-${move.amount}` },
          }),
        )
      }
      onMoved={() => {
        queryClient.invalidateQueries({ queryKey: advertiserKeys.client.all(clientId) });
        queryClient.invalidateQueries({ queryKey: advertiserKeys.clients.all() });
        queryClient.invalidateQueries({ queryKey: appKeys.me() });
      }}
      notice={(_client, move) =>
        t(move.direction === 1 ? 'move.movedTo' : 'move.movedBack', { amount: amountOf(move), name: clientName })
      }
    />
  );
}
