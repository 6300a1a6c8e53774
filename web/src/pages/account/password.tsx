import { useMutation } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { Trans, useTranslation } from 'react-i18next';
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
  const { t } = useTranslation('account');
  const [login, setLogin] = useState('');
  const request = useMutation({ mutationFn: () => api.POST('/api/password-reset', { body: { login } }) });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    request.mutate();
  };
  return (
    <>
      <h1>{t('reset.title')}</h1>
      <form onSubmit={submit} className="card" noValidate>
        {request.isSuccess ? (
          <Notice kind="ok">
            {currentPlatform().emailDelivery ? t('reset.sent') : t('reset.queued')} {t('reset.once')}
          </Notice>
        ) : (
          <>
            {request.error && <Notice kind="error">{problem(request.error)}</Notice>}
            <Field
              label={t('signIn.login')}
              name="login"
              autoComplete="username"
              required
              value={login}
              error={fieldErrors(request.error).login}
              onChange={(event) => setLogin(event.target.value)}
            />
            <button type="submit" className="primary" disabled={request.isPending}>
              {t('reset.send')}
            </button>
          </>
        )}
        <p>
          <Link href="/sign-in">{t('reset.back')}</Link>
        </p>
      </form>
    </>
  );
}

function ChoosePassword({ token }: { token: string }) {
  const { t } = useTranslation('account');
  const [password, setPassword] = useState('');
  const choose = useMutation({ mutationFn: () => api.POST('/api/password-reset/confirm', { body: { token, password } }) });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    choose.mutate();
  };
  const errors = fieldErrors(choose.error);
  return (
    <>
      <h1>{t('choose.title')}</h1>
      <form onSubmit={submit} className="card" noValidate>
        {choose.isSuccess ? (
          <Notice kind="ok">
            <Trans t={t} i18nKey="choose.done" components={{ signin: <Link href="/sign-in" /> }} />
          </Notice>
        ) : (
          <>
            {errors.token && <Notice kind="error">{errors.token}</Notice>}
            {choose.error && Object.keys(errors).length === 0 && <Notice kind="error">{problem(choose.error)}</Notice>}
            <Field
              label={t('password.new')}
              name="password"
              type="password"
              autoComplete="new-password"
              minLength={10}
              required
              hint={t('password.newHint')}
              value={password}
              error={errors.password}
              onChange={(event) => setPassword(event.target.value)}
            />
            <button type="submit" className="primary" disabled={choose.isPending}>
              {t('choose.submit')}
            </button>
          </>
        )}
      </form>
    </>
  );
}
