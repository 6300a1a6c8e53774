import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { api, data, fieldErrors, problem } from '../../api.ts';
import { Field, Notice } from '../../components/controls.tsx';
import { ScrollRegion } from '../../components/scroll-region.tsx';
import { moment } from '../../format.ts';
import { addPasskey } from './webauthn.ts';

/** What a browser's refusal of a WebAuthn ceremony means to the person in front of it. */
export function ceremonyProblem(error: unknown): string {
  if (error instanceof Error && error.name === 'NotAllowedError') return 'The passkey request was cancelled or timed out.';
  if (error instanceof Error && !('status' in error)) return `This browser could not use a passkey: ${error.message}`;
  return problem(error);
}

/** Passkeys: register one with this browser or phone, list them, remove one. */
export function PasskeysSection() {
  const queryClient = useQueryClient();
  const passkeys = useQuery({ queryKey: ['passkeys'], queryFn: () => data(api.GET('/api/me/passkeys')) });
  const [name, setName] = useState('');
  const refresh = () => queryClient.invalidateQueries({ queryKey: ['passkeys'] });
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
      <h2 id="passkeys-title">Passkeys</h2>
      <p>A passkey signs you in without a password, with your fingerprint, face or device PIN.</p>
      {(passkeys.error || remove.error || (add.error && !nameError)) && (
        <Notice kind="error">{ceremonyProblem(add.error ?? passkeys.error ?? remove.error)}</Notice>
      )}
      {add.isSuccess && <Notice kind="ok">Passkey “{add.data.name}” added.</Notice>}
      <form className="inline-form" onSubmit={submit} noValidate aria-label="Add a passkey">
        <Field
          label="Name of the new passkey"
          name="passkey-name"
          placeholder="e.g. Laptop"
          required
          value={name}
          error={nameError}
          onChange={(event) => setName(event.target.value)}
        />
        <button type="submit" className="primary" disabled={add.isPending}>
          Add a passkey
        </button>
      </form>
      <ScrollRegion label="Passkeys">
        <table>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Added</th>
              <th scope="col">Last used</th>
              <th scope="col">
                <span className="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {list.map((passkey) => (
              <tr key={passkey.id}>
                <th scope="row">{passkey.name}</th>
                <td>{moment(passkey.created)}</td>
                <td>{passkey.lastUsed ? moment(passkey.lastUsed) : 'never'}</td>
                <td>
                  <button type="button" className="link danger" onClick={() => remove.mutate(passkey.id)}>
                    Remove<span className="visually-hidden"> {passkey.name}</span>
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
        {passkeys.isSuccess && list.length === 0 && <p className="empty">No passkeys.</p>}
      </ScrollRegion>
    </section>
  );
}
