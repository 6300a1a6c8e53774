import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import i18next from 'i18next';
import { type FormEvent, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { api, data, fieldErrors, problem } from '../../api.ts';
import { Field, Notice } from '../../components/controls.tsx';
import { DataTable } from '../../components/data-table.tsx';
import { moment } from '../../format.ts';
import { accountKeys } from './account-keys.ts';
import { addPasskey } from './webauthn.ts';

/** What a browser's refusal of a WebAuthn ceremony means to the person in front of it. */
export function ceremonyProblem(error: unknown): string {
  if (error instanceof Error && error.name === 'NotAllowedError') return i18next.t('account:passkeys.cancelled');
  if (error instanceof Error && !('status' in error)) return i18next.t('account:passkeys.unsupported', { reason: error.message });
  return problem(error);
}

/** Passkeys: register one with this browser or phone, list them, remove one. */
export function PasskeysSection() {
  const { t } = useTranslation('account');
  const queryClient = useQueryClient();
  const passkeys = useQuery({ queryKey: accountKeys.passkeys(), queryFn: () => data(api.GET('/api/me/passkeys')) });
  const [name, setName] = useState('');
  const refresh = () => queryClient.invalidateQueries({ queryKey: accountKeys.passkeys() });
  const add = useMutation({
    mutationFn: () => addPasskey(name),
    onSuccess: () => {
      setName('');
      refresh();
    },
  });
  const remove = useMutation({
    mutationFn: (id: number) => data(api.DELETE('/api/me/passkeys/{id}', { params: { path: { id } } })),
    onSettled: refresh,
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    add.mutate();
  };
  const nameError = fieldErrors(add.error).name;
  const list = passkeys.data ?? [];
  return (
    <section className="card" aria-labelledby="passkeys-title">
      <h2 id="passkeys-title">{t('passkeys.title')}</h2>
      <p>{t('passkeys.lead')}</p>
      {(passkeys.error || remove.error || (add.error && !nameError)) && (
        <Notice kind="error">{ceremonyProblem(add.error ?? passkeys.error ?? remove.error)}</Notice>
      )}
      {add.isSuccess && <Notice kind="ok">{t('passkeys.added', { name: add.data.name })}</Notice>}
      <form className="inline-form" onSubmit={submit} noValidate aria-label={t('passkeys.add')}>
        <Field
          label={t('passkeys.name')}
          name="passkey-name"
          placeholder={t('passkeys.namePlaceholder')}
          required
          value={name}
          error={nameError}
          onChange={(event) => setName(event.target.value)}
        />
        <button type="submit" className="primary" disabled={add.isPending}>
          {t('passkeys.add')}
        </button>
      </form>
      <DataTable
        label={t('passkeys.title')}
        rows={list}
        rowKey={(passkey) => passkey.id}
        empty={passkeys.isSuccess && t('passkeys.none')}
        columns={[
          { head: t('passkeys.columnName'), rowHeader: true, cell: (passkey) => passkey.name },
          { head: t('passkeys.columnAdded'), cell: (passkey) => moment(passkey.created) },
          {
            head: t('passkeys.columnLastUsed'),
            cell: (passkey) => (passkey.lastUsed ? moment(passkey.lastUsed) : t('passkeys.never')),
          },
          {
            head: t('actions'),
            hiddenHead: true,
            cell: (passkey) => (
              <button type="button" className="link danger" onClick={() => remove.mutate(passkey.id)}>
                {t('passkeys.remove')}
                <span className="visually-hidden"> {passkey.name}</span>
              </button>
            ),
          },
        ]}
      />
    </section>
  );
}
