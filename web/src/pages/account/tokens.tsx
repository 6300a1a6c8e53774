import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { Trans, useTranslation } from 'react-i18next';
import { api, data, fieldErrors, problem } from '../../api.ts';
import { Field, Notice } from '../../components/controls.tsx';
import { ScrollRegion } from '../../components/scroll-region.tsx';
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
      <ScrollRegion label={t('tokens.title')}>
        <table>
          <thead>
            <tr>
              <th scope="col">{t('tokens.columnName')}</th>
              <th scope="col">{t('tokens.columnCreated')}</th>
              <th scope="col">
                <span className="visually-hidden">{t('actions')}</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {active.map((token) => (
              <tr key={token.id}>
                <th scope="row">{token.name || t('tokens.unnamed', { id: token.id })}</th>
                <td>{moment(token.created)}</td>
                <td>
                  <button type="button" className="link danger" onClick={() => revoke.mutate(token.id)}>
                    {t('tokens.revoke')}
                    <span className="visually-hidden"> {token.name}</span>
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
        {tokens.isSuccess && active.length === 0 && <p className="empty">{t('tokens.none')}</p>}
      </ScrollRegion>
    </>
  );
}
