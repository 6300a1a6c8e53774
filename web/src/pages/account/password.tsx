import { useMutation } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { api, fieldErrors, problem } from '../../api.ts';
import { Field, Notice } from '../../components/controls.tsx';
import { currentPlatform } from '../../format.ts';
import { Link, useLocation } from '../../router.tsx';

/** Without a token: ask for a reset link. With the token of an e-mailed link: choose the password. */
export function PasswordPage() {
  const token = useLocation().query.get('token');
  return <main className="auth">{token ? <ChoosePassword token={token} /> : <RequestReset />}</main>;
}

function RequestReset() {
  const [login, setLogin] = useState('');
  const request = useMutation({ mutationFn: () => api.POST('/api/password-reset', { body: { login } }) });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    request.mutate();
  };
  return (
    <>
      <h1>Reset your password</h1>
      <form onSubmit={submit} className="card" noValidate>
        {request.isSuccess ? (
          <Notice kind="ok">
            {currentPlatform().emailDelivery
              ? 'If this login belongs to an account, a link to choose a new password is on its way to the account’s e-mail.'
              : 'If this login belongs to an account, a link to choose a new password is queued in the outbox: this server sends no e-mail, so ask an operator for it.'}{' '}
            It works once, for one hour.
          </Notice>
        ) : (
          <>
            {request.error && <Notice kind="error">{problem(request.error)}</Notice>}
            <Field
              label="Username or e-mail"
              name="login"
              autoComplete="username"
              required
              value={login}
              error={fieldErrors(request.error).login}
              onChange={(event) => setLogin(event.target.value)}
            />
            <button type="submit" className="primary" disabled={request.isPending}>
              Send me a link
            </button>
          </>
        )}
        <p>
          <Link href="/sign-in">Back to sign-in</Link>
        </p>
      </form>
    </>
  );
}

function ChoosePassword({ token }: { token: string }) {
  const [password, setPassword] = useState('');
  const choose = useMutation({ mutationFn: () => api.POST('/api/password-reset/confirm', { body: { token, password } }) });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    choose.mutate();
  };
  const errors = fieldErrors(choose.error);
  return (
    <>
      <h1>Choose your password</h1>
      <form onSubmit={submit} className="card" noValidate>
        {choose.isSuccess ? (
          <Notice kind="ok">
            Your password is set. <Link href="/sign-in">Sign in</Link>
          </Notice>
        ) : (
          <>
            {errors.token && <Notice kind="error">{errors.token}</Notice>}
            {choose.error && Object.keys(errors).length === 0 && <Notice kind="error">{problem(choose.error)}</Notice>}
            <Field
              label="New password"
              name="password"
              type="password"
              autoComplete="new-password"
              minLength={10}
              required
              hint="At least 10 characters."
              value={password}
              error={errors.password}
              onChange={(event) => setPassword(event.target.value)}
            />
            <button type="submit" className="primary" disabled={choose.isPending}>
              Set password
            </button>
          </>
        )}
      </form>
    </>
  );
}
