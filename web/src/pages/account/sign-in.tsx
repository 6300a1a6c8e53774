import { useMutation, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { api, data, fieldErrors, problem } from '../../api.ts';
import { Field, Notice } from '../../components/controls.tsx';
import { LanguageSwitcher } from '../../components/language-switcher.tsx';
import type { Language } from '../../i18n/i18n.ts';
import { appKeys } from '../../query-keys.ts';
import { Link } from '../../router.tsx';
import type { User } from '../../session.ts';
import { ceremonyProblem } from './passkeys.tsx';
import { signInWithPasskey } from './webauthn.ts';

/** Sign-in: password (then, with two-factor sign-in, a code), or a passkey. */
export function SignInPage() {
  const { t } = useTranslation('account');
  const queryClient = useQueryClient();
  const [login, setLogin] = useState('');
  const [password, setPassword] = useState('');
  const [ticket, setTicket] = useState<string | null>(null);
  const [code, setCode] = useState('');
  // A language picked here becomes the account's as it signs in (else the account's own would
  // replace it at once); the app then leads the account from the sign-in page to its first page.
  const [picked, setPicked] = useState<Language | null>(null);
  const signedIn = async (user: User) => {
    if (picked !== null && picked !== user.language) {
      await data(api.PUT('/api/me/language', { body: { language: picked } })).catch(() => undefined);
      queryClient.setQueryData(appKeys.me(), { ...user, language: picked });
    } else {
      queryClient.setQueryData(appKeys.me(), user);
    }
  };
  const signIn = useMutation({
    mutationFn: () => data(api.POST('/api/session', { body: { login, password } })),
    onSuccess: (answer) => {
      if ('ticket' in answer) setTicket(answer.ticket);
      else return signedIn(answer);
    },
  });
  const second = useMutation({
    mutationFn: () => data(api.POST('/api/session/second-factor', { body: { ticket: ticket ?? '', code } })),
    onSuccess: signedIn,
  });
  const passkey = useMutation({
    mutationFn: signInWithPasskey,
    onSuccess: signedIn,
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    signIn.mutate();
  };
  const submitCode = (event: FormEvent) => {
    event.preventDefault();
    second.mutate();
  };
  const errors = fieldErrors(signIn.error);
  const heading = (
    <>
      <LanguageSwitcher signedIn={false} onPick={setPicked} />
      <h1>
        <span className="logo" aria-hidden="true">
          N
        </span>{' '}
        {t('signIn.title')}
      </h1>
    </>
  );
  if (ticket !== null) {
    return (
      <main className="auth">
        {heading}
        <form onSubmit={submitCode} className="card" noValidate aria-label={t('signIn.codeForm')}>
          {second.error && <Notice kind="error">{problem(second.error)}</Notice>}
          <Field
            label={t('signIn.code')}
            name="code"
            inputMode="numeric"
            autoComplete="one-time-code"
            required
            autoFocus
            hint={t('signIn.codeHint')}
            value={code}
            onChange={(event) => setCode(event.target.value)}
          />
          <button type="submit" className="primary" disabled={second.isPending}>
            {second.isPending ? t('signIn.checking') : t('signIn.submit')}
          </button>
          <p>
            <button type="button" className="link" onClick={() => setTicket(null)}>
              {t('signIn.startAgain')}
            </button>
          </p>
        </form>
      </main>
    );
  }
  return (
    <main className="auth">
      {heading}
      <form onSubmit={submit} className="card" noValidate>
        {signIn.error && !errors.login && !errors.password && <Notice kind="error">{problem(signIn.error)}</Notice>}
        <Field
          label={t('signIn.login')}
          name="login"
          autoComplete="username webauthn"
          required
          value={login}
          error={errors.login}
          onChange={(event) => setLogin(event.target.value)}
        />
        <Field
          label={t('signIn.password')}
          name="password"
          type="password"
          autoComplete="current-password"
          required
          value={password}
          error={errors.password}
          onChange={(event) => setPassword(event.target.value)}
        />
        <button type="submit" className="primary" disabled={signIn.isPending}>
          {signIn.isPending ? t('signIn.signingIn') : t('signIn.submit')}
        </button>
        <p>
          <Link href="/password">{t('signIn.forgot')}</Link>
        </p>
      </form>
      <div className="card">
        {passkey.error && <Notice kind="error">{ceremonyProblem(passkey.error)}</Notice>}
        <button type="button" disabled={passkey.isPending} onClick={() => passkey.mutate()}>
          {t('signIn.passkey')}
        </button>
      </div>
    </main>
  );
}
