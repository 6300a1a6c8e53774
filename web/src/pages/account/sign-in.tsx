import { useMutation, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { api, data, fieldErrors, problem } from '../../api.ts';
import { Field, Notice } from '../../components/controls.tsx';
import { Link } from '../../router.tsx';

export function SignInPage() {
  const queryClient = useQueryClient();
  const [login, setLogin] = useState('');
  const [password, setPassword] = useState('');
  const signIn = useMutation({
    mutationFn: () => data(api.POST('/api/session', { body: { login, password } })),
    // The app leads a signed-in account from the sign-in page to its first page.
    onSuccess: (user) => queryClient.setQueryData(['me'], user),
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    signIn.mutate();
  };
  const errors = fieldErrors(signIn.error);
  return (
    <main className="auth">
      <h1>
        <span className="logo" aria-hidden="true">
          N
        </span>{' '}
        Sign in to Nativa
      </h1>
      <form onSubmit={submit} className="card" noValidate>
        {signIn.error && !errors.login && !errors.password && <Notice kind="error">{problem(signIn.error)}</Notice>}
        <Field
          label="Username or e-mail"
          name="login"
          autoComplete="username"
          required
          value={login}
          error={errors.login}
          onChange={(event) => setLogin(event.target.value)}
        />
        <Field
          label="Password"
          name="password"
          type="password"
          autoComplete="current-password"
          required
          value={password}
          error={errors.password}
          onChange={(event) => setPassword(event.target.value)}
        />
        <button type="submit" className="primary" disabled={signIn.isPending}>
          {signIn.isPending ? 'Signing in…' : 'Sign in'}
        </button>
        <p>
          <Link href="/password">Forgot your password?</Link>
        </p>
      </form>
    </main>
  );
}
