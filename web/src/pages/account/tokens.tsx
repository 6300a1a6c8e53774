import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { api, data, fieldErrors, problem } from '../../api.ts';
import { Field, Notice } from '../../components/controls.tsx';
import { ScrollRegion } from '../../components/scroll-region.tsx';
import { moment } from '../../format.ts';

export function TokensPage() {
  const queryClient = useQueryClient();
  const tokens = useQuery({ queryKey: ['tokens'], queryFn: () => data(api.GET('/api/me/tokens')) });
  const [name, setName] = useState('');
  const create = useMutation({
    mutationFn: () => data(api.POST('/api/me/tokens', { body: { name } })),
    onSuccess: () => {
      setName('');
      queryClient.invalidateQueries({ queryKey: ['tokens'] });
    },
  });
  const revoke = useMutation({
    mutationFn: (id: number) => api.DELETE('/api/me/tokens/{id}', { params: { path: { id } } }),
    onSettled: () => queryClient.invalidateQueries({ queryKey: ['tokens'] }),
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    create.mutate();
  };
  const active = (tokens.data ?? []).filter((token) => token.revoked === null);
  return (
    <>
      <div className="page-head">
        <h1>API tokens</h1>
      </div>
      <p className="lead">
        Scripts use the API with a token in the <code>Auth-Token</code> header. A token acts as your account: keep it secret, and
        revoke it when it is no longer used.
      </p>
      <form className="card inline-form" onSubmit={submit} noValidate aria-label="New token">
        <Field
          label="Name of the new token"
          name="name"
          placeholder="e.g. reporting script"
          value={name}
          error={fieldErrors(create.error).name}
          onChange={(event) => setName(event.target.value)}
        />
        <button type="submit" className="primary" disabled={create.isPending}>
          Create token
        </button>
      </form>
      {create.data && (
        <Notice kind="ok">
          Token “{create.data.name}” created. Copy it now, it is not shown again:{' '}
          <code className="secret">{create.data.token}</code>
        </Notice>
      )}
      {(tokens.error || revoke.error) && <Notice kind="error">{problem(tokens.error ?? revoke.error)}</Notice>}
      <ScrollRegion label="API tokens">
        <table>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Created</th>
              <th scope="col">
                <span className="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {active.map((token) => (
              <tr key={token.id}>
                <th scope="row">{token.name || `Token ${token.id}`}</th>
                <td>{moment(token.created)}</td>
                <td>
                  <button type="button" className="link danger" onClick={() => revoke.mutate(token.id)}>
                    Revoke<span className="visually-hidden"> {token.name}</span>
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
        {tokens.isSuccess && active.length === 0 && <p className="empty">No tokens.</p>}
      </ScrollRegion>
    </>
  );
}
