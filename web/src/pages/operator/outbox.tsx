import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { TFunction } from 'i18next';
import { Trans, useTranslation } from 'react-i18next';
import { api, data, isNotFound, listPage, problem } from '../../api.ts';
import { Notice } from '../../components/controls.tsx';
import { Missing } from '../../components/missing.tsx';
import { Pager } from '../../components/pager.tsx';
import { ScrollRegion } from '../../components/scroll-region.tsx';
import { moment } from '../../format.ts';
import { Link, setQuery, useLocation } from '../../router.tsx';
import './operator.css';
import { operatorKeys } from './operator-keys.ts';

const STATUSES = ['queued', 'sent', 'failed'] as const;
const PER_PAGE = 25;
const MAIL_STATUS = { queued: 'mailStatus.queued', sent: 'mailStatus.sent', failed: 'mailStatus.failed' } as const;
/** What a message is for, in words; a kind this page does not know shows as the server wrote it. */
const MAIL_KINDS = {
  email_confirmation: 'mailKind.emailConfirmation',
  password_reset: 'mailKind.passwordReset',
  invitation: 'mailKind.invitation',
  moderation: 'mailKind.moderation',
} as const;
const mailKind = (t: TFunction<'operator'>, kind: string) =>
  kind in MAIL_KINDS ? t(MAIL_KINDS[kind as keyof typeof MAIL_KINDS]) : kind.replaceAll('_', ' ');

export function OutboxPage() {
  const { t } = useTranslation('operator');
  const { query } = useLocation();
  const requested = query.get('status');
  const status = STATUSES.find((value) => value === requested);
  const page = Math.max(1, Number(query.get('page')) || 1);
  const outbox = useQuery({
    queryKey: operatorKeys.outbox.list(status, page),
    queryFn: () =>
      listPage(
        api.GET('/api/admin/outbox', { params: { query: { ...(status ? { status } : {}), page, 'per-page': PER_PAGE } } }),
      ),
  });
  return (
    <>
      <div className="page-head">
        <h1>{t('outbox.title')}</h1>
      </div>
      <p className="lead">
        <Trans t={t} i18nKey="outbox.lead" components={{ code: <code /> }} />
      </p>
      <div className="toolbar">
        <label>
          <span className="visually-hidden">{t('outbox.statusFilter')}</span>
          <select value={status ?? ''} onChange={(event) => setQuery({ status: event.target.value, page: undefined })}>
            <option value="">{t('outbox.everyStatus')}</option>
            <option value="queued">{t('outbox.filter.queued')}</option>
            <option value="sent">{t('outbox.filter.sent')}</option>
            <option value="failed">{t('outbox.filter.failed')}</option>
          </select>
        </label>
      </div>
      {outbox.error && <Notice kind="error">{problem(outbox.error)}</Notice>}
      <ScrollRegion label={t('outbox.title')}>
        <table className="stack">
          <thead>
            <tr>
              <th scope="col">{t('outbox.subject')}</th>
              <th scope="col">{t('outbox.to')}</th>
              <th scope="col">{t('outbox.queued')}</th>
              <th scope="col">{t('outbox.status')}</th>
            </tr>
          </thead>
          <tbody>
            {(outbox.data?.items ?? []).map((mail) => (
              <tr key={mail.id}>
                <th scope="row">
                  <Link href={`/operator/outbox/${mail.id}`}>{mail.subject}</Link>
                  <span className="sub">{mailKind(t, mail.kind)}</span>
                </th>
                <td data-label={t('outbox.to')} className="wrap">
                  {mail.to}
                </td>
                <td data-label={t('outbox.queued')}>{moment(mail.date)}</td>
                <td data-label={t('outbox.status')}>
                  <span className={`mail-status ${mail.status}`}>{t(MAIL_STATUS[mail.status])}</span>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
        {outbox.data && outbox.data.items.length === 0 && <p className="empty">{t('outbox.empty')}</p>}
      </ScrollRegion>
      <Pager
        page={page}
        pageCount={outbox.data?.pageCount ?? 1}
        label={t('outbox.pagerLabel')}
        onPage={(next) => setQuery({ page: String(next) })}
      />
    </>
  );
}

export function OutboxMessagePage({ id }: { id: number }) {
  const { t } = useTranslation('operator');
  const queryClient = useQueryClient();
  const key = operatorKeys.outbox.message(id);
  const message = useQuery({
    queryKey: key,
    queryFn: () => data(api.GET('/api/admin/outbox/{id}', { params: { path: { id } } })),
  });
  const resend = useMutation({
    mutationFn: () => data(api.POST('/api/admin/outbox/{id}/send', { params: { path: { id } } })),
    onSuccess: (sent) => {
      queryClient.setQueryData(key, sent);
      queryClient.invalidateQueries({ queryKey: operatorKeys.outbox.lists() });
    },
  });
  if (isNotFound(message.error)) {
    return (
      <Missing
        what={t('outbox.missing')}
        text={t('outbox.missingText', { id })}
        back="/operator/outbox"
        backLabel={t('outbox.back')}
      />
    );
  }
  if (message.error) return <Notice kind="error">{problem(message.error)}</Notice>;
  const mail = message.data;
  if (!mail) return <p className="loading">{t('outbox.loading')}</p>;
  return (
    <>
      <p className="crumbs">
        <Link href="/operator/outbox">{t('outbox.title')}</Link> /
      </p>
      <div className="page-head">
        <h1 className="wrap">{mail.subject}</h1>
        {mail.status !== 'sent' && (
          <button type="button" className="primary" disabled={resend.isPending} onClick={() => resend.mutate()}>
            {resend.isPending ? t('outbox.sending') : t('outbox.sendAgain')}
          </button>
        )}
      </div>
      {resend.error && <Notice kind="error">{problem(resend.error)}</Notice>}
      {resend.isSuccess && (
        <Notice kind={mail.status === 'sent' ? 'ok' : 'error'}>
          {mail.status === 'sent'
            ? t('outbox.delivered')
            : t('outbox.notDelivered', { why: mail.error || t(MAIL_STATUS[mail.status]) })}
        </Notice>
      )}
      <div className="card">
        <dl className="facts">
          <dt>{t('outbox.to')}</dt>
          <dd className="wrap">{mail.to}</dd>
          <dt>{t('outbox.kind')}</dt>
          <dd>{mailKind(t, mail.kind)}</dd>
          {mail.userId !== null && (
            <>
              <dt>{t('outbox.account')}</dt>
              <dd>
                <Link href={`/operator/accounts/${mail.userId}`}>#{mail.userId}</Link>
              </dd>
            </>
          )}
          <dt>{t('outbox.queued')}</dt>
          <dd>{moment(mail.date)}</dd>
          <dt>{t('outbox.status')}</dt>
          <dd>
            <span className={`mail-status ${mail.status}`}>{t(MAIL_STATUS[mail.status])}</span>
            {mail.sentAt && ` ${moment(mail.sentAt)}`} · {t('outbox.attempts', { count: mail.attempts })}
          </dd>
          {mail.error && (
            <>
              <dt>{t('outbox.lastError')}</dt>
              <dd className="wrap">{mail.error}</dd>
            </>
          )}
        </dl>
        {mail.text ? <pre className="mail-text">{mail.text}</pre> : <p className="empty">{t('outbox.textGone')}</p>}
      </div>
    </>
  );
}
