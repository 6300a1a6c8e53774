import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { Trans, useTranslation } from 'react-i18next';
import { api, data, listPage, problem, useFieldErrors } from '../../api.ts';
import { Field, ListStatus, Notice } from '../../components/controls.tsx';
import { Pager } from '../../components/pager.tsx';
import { amountInput, moment, money, type ParsedAmount, parseAmount } from '../../format.ts';
import { appKeys } from '../../query-keys.ts';
import { Link, navigate, useLocation } from '../../router.tsx';
import type { PageProps } from '../../routes.tsx';

const PER_PAGE = 20;

/** Where a notification's object is, for the account that reads it. */
function whereOf(kind: string, itemData: Record<string, unknown>, type: PageProps['user']['type']): string | undefined {
  const id = typeof itemData.id === 'number' ? itemData.id : undefined;
  if (kind === 'moderation.decided' && itemData.object === 'site' && id) return `/publisher/sites/${id}`;
  if (kind === 'moderation.decided' && itemData.object === 'campaign' && id) return `/advertiser/campaigns/${id}`;
  if (kind === 'campaign.budget_exhausted' && typeof itemData.campaignId === 'number') {
    return `/advertiser/campaigns/${itemData.campaignId}`;
  }
  if (kind === 'webhook.disabled') return type === 'operator' ? undefined : `/${type}/webhooks`;
  if (kind === 'traffic.warning' && typeof itemData.siteId === 'number') return `/publisher/statistics?site=${itemData.siteId}`;
  return undefined;
}

export function NotificationsPage({ user }: PageProps) {
  const { t } = useTranslation('account');
  const { query } = useLocation();
  const unreadOnly = query.get('unread') === '1';
  const page = Math.max(1, Number(query.get('page')) || 1);
  const queryClient = useQueryClient();
  const list = useQuery({
    queryKey: appKeys.notifications.list(unreadOnly, page),
    queryFn: () =>
      listPage(
        api.GET('/api/notifications', {
          params: { query: { page, 'per-page': PER_PAGE, ...(unreadOnly ? { unread: true } : {}) } },
        }),
      ),
  });
  const refresh = () => queryClient.invalidateQueries({ queryKey: appKeys.notifications.all() });
  const readOne = useMutation({
    mutationFn: (id: number) => data(api.POST('/api/notifications/{id}/read', { params: { path: { id } } })),
    onSettled: refresh,
  });
  const readAll = useMutation({ mutationFn: () => data(api.POST('/api/notifications/read')), onSettled: refresh });
  const items = list.data?.items ?? [];
  const filterHref = (unread: boolean) => (unread ? '/notifications?unread=1' : '/notifications');
  return (
    <>
      <div className="page-head">
        <h1>{t('notifications.title')}</h1>
        <button type="button" onClick={() => readAll.mutate()} disabled={readAll.isPending || items.every((item) => item.read)}>
          {t('notifications.markAllRead')}
        </button>
      </div>
      <p className="lead">
        <Trans t={t} i18nKey="notifications.lead" components={{ code: <code /> }} />
      </p>
      <nav className="filter-tabs" aria-label={t('notifications.which')}>
        <Link href={filterHref(false)} aria-current={unreadOnly ? undefined : 'page'}>
          {t('notifications.all')}
        </Link>
        <Link href={filterHref(true)} aria-current={unreadOnly ? 'page' : undefined}>
          {t('notifications.unread')}
        </Link>
      </nav>
      {(list.error || readOne.error || readAll.error) && (
        <Notice kind="error">{problem(list.error ?? readOne.error ?? readAll.error)}</Notice>
      )}
      <ListStatus query={list} empty={items.length === 0}>
        {unreadOnly ? t('notifications.nothingUnread') : t('notifications.none')}
      </ListStatus>
      <ul className="notifications">
        {items.map((item) => {
          const where = whereOf(item.kind, item.data, user.type);
          return (
            <li key={item.id} className={`card notification${item.read ? '' : ' unread'}`}>
              <div>
                <p>
                  {item.read ? null : <span className="visually-hidden">{t('notifications.unreadMark')} </span>}
                  {item.text}
                </p>
                <time dateTime={item.date}>{moment(item.date)}</time>
                {where && (
                  <>
                    {' · '}
                    <Link href={where}>{t('notifications.open')}</Link>
                  </>
                )}
              </div>
              {!item.read && (
                <button type="button" onClick={() => readOne.mutate(item.id)} disabled={readOne.isPending}>
                  {t('notifications.markRead')}
                </button>
              )}
            </li>
          );
        })}
      </ul>
      {list.data && (
        <Pager
          page={page}
          pageCount={Math.ceil(list.data.total / PER_PAGE)}
          label={t('notifications.pagerLabel')}
          onPage={(to) => navigate(`${filterHref(unreadOnly)}${unreadOnly ? '&' : '?'}page=${to}`)}
        />
      )}
      {user.type === 'advertiser' && <LowBalanceSetting />}
    </>
  );
}

/** The balance below which the advertiser is told it is low. */
function LowBalanceSetting() {
  const { t } = useTranslation('account');
  const queryClient = useQueryClient();
  const summary = useQuery({
    queryKey: appKeys.notifications.summary(),
    queryFn: () => data(api.GET('/api/notifications/summary')),
  });
  const [value, setValue] = useState<string | null>(null);
  const save = useMutation({
    mutationFn: (lowBalance: string) => data(api.PUT('/api/notifications/settings', { body: { lowBalance } })),
    onSuccess: (answer) => {
      queryClient.setQueryData(appKeys.notifications.summary(), answer);
      setValue(null);
    },
  });
  const { errors } = useFieldErrors(save.error);
  const [local, setLocal] = useState<string | null>(null);
  // Typed and shown as the reader's language writes amounts (as every money field); sent as the
  // API's decimal string.
  const shown = value ?? (summary.data ? amountInput(summary.data.lowBalance) : '');
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const parsed: ParsedAmount = shown.trim() === '' ? { ok: true, amount: '0' } : parseAmount(shown);
    if (!parsed.ok) {
      setLocal(parsed.message);
      return;
    }
    setLocal(null);
    save.mutate(parsed.amount);
  };
  return (
    <section aria-labelledby="low-balance-title" className="card">
      <h2 id="low-balance-title">{t('lowBalance.title')}</h2>
      <form onSubmit={submit} noValidate>
        <Field
          label={t('lowBalance.label')}
          name="lowBalance"
          inputMode="decimal"
          maxLength={14}
          value={shown}
          onChange={(event) => {
            setLocal(null);
            setValue(event.target.value);
          }}
          error={local ?? errors.lowBalance}
          hint={t('lowBalance.hint', { example: amountInput(25.5) })}
        />
        <div className="actions">
          <button type="submit" className="primary" disabled={save.isPending}>
            {t('lowBalance.save')}
          </button>
        </div>
      </form>
      {save.isSuccess && summary.data && (
        <Notice kind="ok">{t('lowBalance.saved', { amount: money(summary.data.lowBalance) })}</Notice>
      )}
    </section>
  );
}
