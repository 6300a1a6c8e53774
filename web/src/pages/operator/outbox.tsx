import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, data, isNotFound, listPage, problem } from '../../api.ts';
import { Notice } from '../../components/controls.tsx';
import { Missing } from '../../components/missing.tsx';
import { Pager } from '../../components/pager.tsx';
import { ScrollRegion } from '../../components/scroll-region.tsx';
import { moment } from '../../format.ts';
import { Link, setQuery, useLocation } from '../../router.tsx';
import './operator.css';

const STATUSES = ['queued', 'sent', 'failed'] as const;
const PER_PAGE = 25;

export function OutboxPage() {
  const { query } = useLocation();
  const requested = query.get('status');
  const status = STATUSES.find((value) => value === requested);
  const page = Math.max(1, Number(query.get('page')) || 1);
  const outbox = useQuery({
    queryKey: ['outbox', 'list', status, page],
    queryFn: () =>
      listPage(
        api.GET('/api/admin/outbox', { params: { query: { ...(status ? { status } : {}), page, 'per-page': PER_PAGE } } }),
      ),
  });
  return (
    <>
      <div className="page-head">
        <h1>Outbox</h1>
      </div>
      <p className="lead">
        Every e-mail the platform sends, newest first. Without <code>SMTP_URL</code> messages stay queued here.
      </p>
      <div className="toolbar">
        <label>
          <span className="visually-hidden">Message status</span>
          <select value={status ?? ''} onChange={(event) => setQuery({ status: event.target.value, page: undefined })}>
            <option value="">Every status</option>
            <option value="queued">Queued</option>
            <option value="sent">Sent</option>
            <option value="failed">Failed</option>
          </select>
        </label>
      </div>
      {outbox.error && <Notice kind="error">{problem(outbox.error)}</Notice>}
      <ScrollRegion label="Outbox">
        <table className="stack">
          <thead>
            <tr>
              <th scope="col">Subject</th>
              <th scope="col">To</th>
              <th scope="col">Queued</th>
              <th scope="col">Status</th>
            </tr>
          </thead>
          <tbody>
            {(outbox.data?.items ?? []).map((mail) => (
              <tr key={mail.id}>
                <th scope="row">
                  <Link href={`/operator/outbox/${mail.id}`}>{mail.subject}</Link>
                  <span className="sub">{mail.kind.replaceAll('_', ' ')}</span>
                </th>
                <td data-label="To" className="wrap">
                  {mail.to}
                </td>
                <td data-label="Queued">{moment(mail.date)}</td>
                <td data-label="Status">
                  <span className={`mail-status ${mail.status}`}>{mail.status}</span>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
        {outbox.data && outbox.data.items.length === 0 && <p className="empty">No messages.</p>}
      </ScrollRegion>
      <Pager
        page={page}
        pageCount={outbox.data?.pageCount ?? 1}
        label="outbox"
        onPage={(next) => setQuery({ page: String(next) })}
      />
    </>
  );
}

export function OutboxMessagePage({ id }: { id: number }) {
  const queryClient = useQueryClient();
  const key = ['outbox', 'message', id];
  const message = useQuery({
    queryKey: key,
    queryFn: () => data(api.GET('/api/admin/outbox/{id}', { params: { path: { id } } })),
  });
  const resend = useMutation({
    mutationFn: () => data(api.POST('/api/admin/outbox/{id}/send', { params: { path: { id } } })),
    onSuccess: (sent) => {
      queryClient.setQueryData(key, sent);
      queryClient.invalidateQueries({ queryKey: ['outbox', 'list'] });
    },
  });
  if (isNotFound(message.error)) {
    return <Missing what="Message" text={`There is no message #${id}.`} back="/operator/outbox" backLabel="The outbox" />;
  }
  if (message.error) return <Notice kind="error">{problem(message.error)}</Notice>;
  const mail = message.data;
  if (!mail) return <p className="loading">Loading…</p>;
  return (
    <>
      <p className="crumbs">
        <Link href="/operator/outbox">Outbox</Link> /
      </p>
      <div className="page-head">
        <h1 className="wrap">{mail.subject}</h1>
        {mail.status !== 'sent' && (
          <button type="button" className="primary" disabled={resend.isPending} onClick={() => resend.mutate()}>
            {resend.isPending ? 'Sending…' : 'Send again'}
          </button>
        )}
      </div>
      {resend.error && <Notice kind="error">{problem(resend.error)}</Notice>}
      {resend.isSuccess && (
        <Notice kind={mail.status === 'sent' ? 'ok' : 'error'}>
          {mail.status === 'sent' ? 'Delivered to the mail server.' : `Not delivered: ${mail.error || mail.status}.`}
        </Notice>
      )}
      <div className="card">
        <dl className="facts">
          <dt>To</dt>
          <dd className="wrap">{mail.to}</dd>
          <dt>Kind</dt>
          <dd>{mail.kind.replaceAll('_', ' ')}</dd>
          {mail.userId !== null && (
            <>
              <dt>Account</dt>
              <dd>
                <Link href={`/operator/accounts/${mail.userId}`}>#{mail.userId}</Link>
              </dd>
            </>
          )}
          <dt>Queued</dt>
          <dd>{moment(mail.date)}</dd>
          <dt>Status</dt>
          <dd>
            <span className={`mail-status ${mail.status}`}>{mail.status}</span>
            {mail.sentAt && ` ${moment(mail.sentAt)}`} · {mail.attempts} attempt{mail.attempts === 1 ? '' : 's'}
          </dd>
          {mail.error && (
            <>
              <dt>Last error</dt>
              <dd className="wrap">{mail.error}</dd>
            </>
          )}
        </dl>
        {mail.text ? (
          <pre className="mail-text">{mail.text}</pre>
        ) : (
          <p className="empty">The text is no longer kept: it carried a link to set a password and has been delivered.</p>
        )}
      </div>
    </>
  );
}
