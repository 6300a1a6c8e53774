import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { api, data, problem } from '../../api.ts';
import { Notice } from '../../components/controls.tsx';
import { DataTable } from '../../components/data-table.tsx';
import { moment } from '../../format.ts';
import { accountKeys } from './account-keys.ts';

const METHODS = {
  password: 'sessions.methodPassword',
  'password+totp': 'sessions.methodPasswordCode',
  'password+recovery-code': 'sessions.methodPasswordRecovery',
  passkey: 'sessions.methodPasskey',
} as const;
const isMethod = (method: string): method is keyof typeof METHODS => method in METHODS;

/**
 * "Where you're signed in": every live session of the account, with ending one or all others.
 * The buttons do not say "Sign out": that is the header's button for this browser.
 */
export function SessionsSection() {
  const { t } = useTranslation('account');
  const queryClient = useQueryClient();
  const sessions = useQuery({ queryKey: accountKeys.sessions(), queryFn: () => data(api.GET('/api/me/sessions')) });
  const refresh = () => queryClient.invalidateQueries({ queryKey: accountKeys.sessions() });
  const end = useMutation({
    mutationFn: (id: number) => data(api.DELETE('/api/me/sessions/{id}', { params: { path: { id } } })),
    onSettled: refresh,
  });
  const endOthers = useMutation({ mutationFn: () => data(api.DELETE('/api/me/sessions')), onSettled: refresh });
  const list = sessions.data ?? [];
  return (
    <section className="card" aria-labelledby="sessions-title">
      <h2 id="sessions-title">{t('sessions.title')}</h2>
      {(sessions.error || end.error || endOthers.error) && (
        <Notice kind="error">{problem(sessions.error ?? end.error ?? endOthers.error)}</Notice>
      )}
      {endOthers.isSuccess && <Notice kind="ok">{t('sessions.othersEnded', { count: endOthers.data.ended })}</Notice>}
      <DataTable
        label={t('sessions.label')}
        rows={list}
        rowKey={(session) => session.id}
        columns={[
          {
            head: t('sessions.device'),
            rowHeader: true,
            title: (session) => session.userAgent,
            cell: (session) => (
              <>
                {session.device}
                {session.current && <span className="tag">{t('sessions.thisBrowser')}</span>}
              </>
            ),
          },
          { head: t('sessions.address'), cell: (session) => session.address },
          {
            head: t('sessions.signedIn'),
            cell: (session) =>
              `${moment(session.created)} (${isMethod(session.method) ? t(METHODS[session.method]) : session.method})`,
          },
          { head: t('sessions.lastSeen'), cell: (session) => moment(session.lastSeen) },
          {
            head: t('actions'),
            hiddenHead: true,
            cell: (session) =>
              !session.current && (
                <button type="button" className="link danger" onClick={() => end.mutate(session.id)}>
                  {t('sessions.end')}
                  <span className="visually-hidden"> {t('sessions.endOf', { device: session.device })}</span>
                </button>
              ),
          },
        ]}
      />
      <div className="actions">
        <button
          type="button"
          className="danger"
          disabled={endOthers.isPending || list.length < 2}
          onClick={() => endOthers.mutate()}
        >
          {t('sessions.endOthers')}
        </button>
      </div>
    </section>
  );
}
