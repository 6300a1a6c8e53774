import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, data, problem } from '../../api.ts';
import { Notice } from '../../components/controls.tsx';
import { ScrollRegion } from '../../components/scroll-region.tsx';
import { moment } from '../../format.ts';

const METHODS: Record<string, string> = {
  password: 'password',
  'password+totp': 'password and code',
  'password+recovery-code': 'password and recovery code',
  passkey: 'passkey',
};

/**
 * "Where you're signed in": every live session of the account, with ending one or all others.
 * The buttons do not say "Sign out": that is the header's button for this browser.
 */
export function SessionsSection() {
  const queryClient = useQueryClient();
  const sessions = useQuery({ queryKey: ['sessions'], queryFn: () => data(api.GET('/api/me/sessions')) });
  const refresh = () => queryClient.invalidateQueries({ queryKey: ['sessions'] });
  const end = useMutation({
    mutationFn: (id: number) => data(api.DELETE('/api/me/sessions/{id}', { params: { path: { id } } })),
    onSettled: refresh,
  });
  const endOthers = useMutation({ mutationFn: () => data(api.DELETE('/api/me/sessions')), onSettled: refresh });
  const list = sessions.data ?? [];
  return (
    <section className="card" aria-labelledby="sessions-title">
      <h2 id="sessions-title">Where you’re signed in</h2>
      {(sessions.error || end.error || endOthers.error) && (
        <Notice kind="error">{problem(sessions.error ?? end.error ?? endOthers.error)}</Notice>
      )}
      {endOthers.isSuccess && (
        <Notice kind="ok">
          Every other session has ended ({endOthers.data.ended} {endOthers.data.ended === 1 ? 'session' : 'sessions'}); those
          browsers must sign in again.
        </Notice>
      )}
      <ScrollRegion label="Sessions">
        <table>
          <thead>
            <tr>
              <th scope="col">Device</th>
              <th scope="col">Address</th>
              <th scope="col">Signed in</th>
              <th scope="col">Last seen</th>
              <th scope="col">
                <span className="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {list.map((session) => (
              <tr key={session.id}>
                <th scope="row" title={session.userAgent}>
                  {session.device}
                  {session.current && <span className="tag">this browser</span>}
                </th>
                <td>{session.address}</td>
                <td>
                  {moment(session.created)} ({METHODS[session.method] ?? session.method})
                </td>
                <td>{moment(session.lastSeen)}</td>
                <td>
                  {!session.current && (
                    <button type="button" className="link danger" onClick={() => end.mutate(session.id)}>
                      End session<span className="visually-hidden"> of {session.device}</span>
                    </button>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </ScrollRegion>
      <div className="actions">
        <button
          type="button"
          className="danger"
          disabled={endOthers.isPending || list.length < 2}
          onClick={() => endOthers.mutate()}
        >
          End all other sessions
        </button>
      </div>
    </section>
  );
}
