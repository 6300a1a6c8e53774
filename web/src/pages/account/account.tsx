import { useMutation } from '@tanstack/react-query';
import { type FormEvent, lazy, Suspense, useState } from 'react';
import { api, data, problem, useFieldErrors } from '../../api.ts';
import { Field, Notice } from '../../components/controls.tsx';
import type { User } from '../../session.ts';

const SecuritySections = lazy(() => import('./security.tsx').then((module) => ({ default: module.SecuritySections })));

/** The signed-in account: who it is, its password, two-factor sign-in, passkeys and where it is signed in. */
export function AccountPage({ user }: { user: User }) {
  const [form, setForm] = useState({ current: '', new: '' });
  const change = useMutation({
    mutationFn: () => data(api.PUT('/api/me/password', { body: form })),
    onSuccess: () => setForm({ current: '', new: '' }),
  });
  const { errors, general, edited, submitted } = useFieldErrors(change.error);
  const set = (name: keyof typeof form) => (event: { target: { value: string } }) => {
    setForm({ ...form, [name]: event.target.value });
    edited(name);
    change.reset();
  };
  const submit = (event: FormEvent) => {
    event.preventDefault();
    submitted();
    change.mutate();
  };
  return (
    <>
      <div className="page-head">
        <h1>Your account</h1>
      </div>
      <dl className="card facts">
        <dt>Login</dt>
        <dd>{user.username}</dd>
        <dt>E-mail</dt>
        <dd>
          {user.email}
          {!user.emailConfirmed && <span className="tag">not confirmed</span>}
        </dd>
        <dt>Account type</dt>
        <dd>{user.type}</dd>
      </dl>
      <form className="card form-grid narrow" onSubmit={submit} noValidate aria-label="Change password">
        <h2>Change password</h2>
        {/* A hidden login field lets password managers file the new password under the right account. */}
        <input type="text" name="username" autoComplete="username" value={user.username} readOnly hidden />
        {general && <Notice kind="error">{problem(change.error)}</Notice>}
        {change.isSuccess && (
          <Notice kind="ok">Your password is changed. Your other signed-in browsers are signed out; this one stays.</Notice>
        )}
        <Field
          label="Current password"
          name="current"
          type="password"
          autoComplete="current-password"
          required
          value={form.current}
          error={errors.current}
          onChange={set('current')}
        />
        <Field
          label="New password"
          name="new"
          type="password"
          autoComplete="new-password"
          minLength={10}
          required
          hint="10 to 200 characters."
          value={form.new}
          error={errors.new}
          onChange={set('new')}
        />
        <div className="actions">
          <button type="submit" className="primary" disabled={change.isPending}>
            Change password
          </button>
        </div>
      </form>
      <Suspense fallback={<p className="loading">Loading…</p>}>
        <SecuritySections />
      </Suspense>
    </>
  );
}
