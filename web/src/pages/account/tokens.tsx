import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { Trans, useTranslation } from 'react-i18next';
import { api, data, fieldErrors, problem } from '../../api.ts';
import { Field, Notice } from '../../components/controls.tsx';
import { DataTable } from '../../components/data-table.tsx';
import { useForgetOnLeave } from '../../components/shown-once.ts';
import { moment } from '../../format.ts';
import { accountKeys } from './account-keys.ts';

export function TokensPage() {
  const { t } = useTranslation('account');
  const queryClient = useQueryClient();
  const tokens = useQuery({ queryKey: accountKeys.tokens(), queryFn: () => data(api.GET('/api/me/tokens')) });
  const [name, setName] = useState('');
  const create = useMutation({
    mutationFn: () => data(api.POST('/api/me/tokens', { body: { name } })),
    onSuccess: () => {
      setName('');
      queryClient.invalidateQueries({ queryKey: accountKeys.tokens() });
    },
  });
  useForgetOnLeave(create.reset);
  const revoke = useMutation({
    mutationFn: (id: number) => api.DELETE('/api/me/tokens/{id}', { params: { path: { id } } }),
    onSettled: () => queryClient.invalidateQueries({ queryKey: accountKeys.tokens() }),
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    create.mutate();
  };
  const active = (tokens.data ?? []).filter((token) => token.revoked === null);
  return (
    <>
      <div className="page-head">
        <h1>{t('tokens.title')}</h1>
      </div>
      <p className="lead">
        <Trans t={t} i18nKey="tokens.lead" components={{ code: <code /> }} />
      </p>
      <form className="card inline-form" onSubmit={submit} noValidate aria-label={t('tokens.new')}>
        <Field
          label={t('tokens.name')}
          name="name"
          placeholder={t('tokens.namePlaceholder')}
          value={name}
          error={fieldErrors(create.error).name}
          onChange={(event) => setName(event.target.value)}
        />
        <button type="submit" className="primary" disabled={create.isPending}>
          {t('tokens.create')}
        </button>
      </form>
      {create.data && (
        <Notice kind="ok">
          {t('tokens.created', { name: create.data.name })} <code className="secret">{create.data.token}</code>
        </Notice>
      )}
      {(tokens.error || revoke.error) && <Notice kind="error">{problem(tokens.error ?? revoke.error)}</Notice>}
      <DataTable
        label={t('tokens.title')}
        rows={active}
        rowKey={(token) => token.id}
        empty={tokens.isSuccess && t('tokens.none')}
        columns={[
          { head: t('tokens.columnName'), rowHeader: true, cell: (token) => token.name || t('tokens.unnamed', { id: token.id }) },
          { head: t('tokens.columnCreated'), cell: (token) => moment(token.created) },
          {
            head: t('actions'),
            hiddenHead: true,
            cell: (token) => (
              <button type="button" className="link danger" onClick={() => revoke.mutate(token.id)}>
                {t('tokens.revoke')}
                <span className="visually-hidden"> {token.name}</span>
              </button>
            ),
          },
        ]}
      />
    </>
  );
}
