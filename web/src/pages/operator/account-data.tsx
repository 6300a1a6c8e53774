import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { api, data, problem } from '../../api.ts';
import { Notice } from '../../components/controls.tsx';
import { operatorKeys } from './operator-keys.ts';

/** A data subject's request on the operator's account page: export everything, or erase (docs/privacy.md). */
export function AccountData({ id, username }: { id: number; username: string }) {
  const { t } = useTranslation('operator');
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
      void client.invalidateQueries({ queryKey: operatorKeys.account(id) });
    },
  });
  return (
    <section className="card" aria-labelledby="data-title">
      <h2 id="data-title">{t('data.title')}</h2>
      <p>{t('data.lead')}</p>
      {(exported.error || erase.error) && <Notice kind="error">{problem(exported.error ?? erase.error)}</Notice>}
      {exported.isSuccess && <Notice kind="ok">{t('data.exported')}</Notice>}
      {erase.isSuccess && <Notice kind="ok">{t('data.erased')}</Notice>}
      <div className="actions">
        <button type="button" onClick={() => exported.mutate()} disabled={exported.isPending}>
          {t('data.export')}
        </button>
        {!confirming ? (
          <button type="button" className="danger" onClick={() => setConfirming(true)}>
            {t('data.erase')}
          </button>
        ) : (
          <>
            <button type="button" className="danger" onClick={() => erase.mutate()} disabled={erase.isPending}>
              {t('data.eraseForGood', { username })}
            </button>
            <button type="button" onClick={() => setConfirming(false)}>
              {t('data.cancel')}
            </button>
          </>
        )}
      </div>
    </section>
  );
}
