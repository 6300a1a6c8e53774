import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { api, data, problem } from '../../api.ts';
import { Notice } from '../../components/controls.tsx';

/** A data subject's request on the operator's account page: export everything, or erase (docs/privacy.md). */
export function AccountData({ id, username }: { id: number; username: string }) {
  const client = useQueryClient();
  const [confirming, setConfirming] = useState(false);
  const exported = useMutation({
    mutationFn: () => data(api.GET('/api/admin/users/{id}/data', { params: { path: { id } } })),
    onSuccess: (everything) => {
      const link = document.createElement('a');
      link.href = URL.createObjectURL(new Blob([JSON.stringify(everything, null, 2)], { type: 'application/json' }));
      link.download = `nativa-account-${id}.json`;
      link.click();
      URL.revokeObjectURL(link.href);
    },
  });
  const erase = useMutation({
    mutationFn: () => data(api.POST('/api/admin/users/{id}/erase', { params: { path: { id } } })),
    onSuccess: () => {
      setConfirming(false);
      void client.invalidateQueries({ queryKey: ['account', id] });
    },
  });
  return (
    <section className="card" aria-labelledby="data-title">
      <h2 id="data-title">Personal data</h2>
      <p>
        Export everything Nativa holds about this account as JSON, or erase it: its personal fields are blanked and its sessions,
        tokens and passkeys deleted; its money records stay.
      </p>
      {(exported.error || erase.error) && <Notice kind="error">{problem(exported.error ?? erase.error)}</Notice>}
      {exported.isSuccess && <Notice kind="ok">The export was downloaded.</Notice>}
      {erase.isSuccess && <Notice kind="ok">The account was erased.</Notice>}
      <div className="actions">
        <button type="button" onClick={() => exported.mutate()} disabled={exported.isPending}>
          Export data
        </button>
        {!confirming ? (
          <button type="button" className="danger" onClick={() => setConfirming(true)}>
            Erase account
          </button>
        ) : (
          <>
            <button type="button" className="danger" onClick={() => erase.mutate()} disabled={erase.isPending}>
              Erase {username} for good
            </button>
            <button type="button" onClick={() => setConfirming(false)}>
              Cancel
            </button>
          </>
        )}
      </div>
    </section>
  );
}
