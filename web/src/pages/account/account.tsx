import { useMutation } from '@tanstack/react-query';
import { type FormEvent, lazy, Suspense, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { api, data, problem, useFieldErrors } from '../../api.ts';
import { Field, Notice } from '../../components/controls.tsx';
import { LanguageSwitcher } from '../../components/language-switcher.tsx';
import type { User } from '../../session.ts';

const SecuritySections = lazy(() => import('./security.tsx').then((module) => ({ default: module.SecuritySections })));

const ACCOUNT_TYPE = {
  advertiser: 'account.typeAdvertiser',
  publisher: 'account.typePublisher',
  operator: 'account.typeOperator',
} as const;

/** The signed-in account: who it is, its password, two-factor sign-in, passkeys and where it is signed in. */
export function AccountPage({ user }: { user: User }) {
  const { t } = useTranslation('account');
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
        <h1>{t('account.title')}</h1>
      </div>
      <dl className="card facts">
        <dt>{t('account.login')}</dt>
        <dd>{user.username}</dd>
        <dt>{t('account.email')}</dt>
        <dd>
          {user.email}
          {!user.emailConfirmed && <span className="tag">{t('account.notConfirmed')}</span>}
        </dd>
        <dt>{t('account.type')}</dt>
        <dd>{t(ACCOUNT_TYPE[user.type])}</dd>
        <dt>{t('account.language')}</dt>
        <dd>
          <LanguageSwitcher signedIn />
        </dd>
      </dl>
      <form className="card form-grid narrow" onSubmit={submit} noValidate aria-label={t('account.changePassword')}>
        <h2>{t('account.changePassword')}</h2>
        {/* A hidden login field lets password managers file the new password under the right account. */}
        <input type="text" name="username" autoComplete="username" value={user.username} readOnly hidden />
        {general && <Notice kind="error">{problem(change.error)}</Notice>}
        {change.isSuccess && <Notice kind="ok">{t('account.passwordChanged')}</Notice>}
        <Field
          label={t('account.currentPassword')}
          name="current"
          type="password"
          autoComplete="current-password"
          required
          value={form.current}
          error={errors.current}
          onChange={set('current')}
        />
        <Field
          label={t('password.new')}
          name="new"
          type="password"
          autoComplete="new-password"
          minLength={10}
          required
          hint={t('account.newPasswordHint')}
          value={form.new}
          error={errors.new}
          onChange={set('new')}
        />
        <div className="actions">
          <button type="submit" className="primary" disabled={change.isPending}>
            {t('account.changePassword')}
          </button>
        </div>
      </form>
      <Suspense fallback={<p className="loading">{t('loading')}</p>}>
        <SecuritySections />
      </Suspense>
    </>
  );
}
