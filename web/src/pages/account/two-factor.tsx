import { useMutation, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { Trans, useTranslation } from 'react-i18next';
import { api, data, fieldErrors, problem } from '../../api.ts';
import { Field, Notice } from '../../components/controls.tsx';
import { useForgetOnLeave } from '../../components/shown-once.ts';
import { moment } from '../../format.ts';
import { appKeys } from '../../query-keys.ts';
import { useTwoFactor } from '../../session.ts';
import { QrCode } from './qr-code.tsx';
import { RecoveryCodes } from './recovery-codes.tsx';

/**
 * Two-factor sign-in: turn it on (scan, confirm with a code, keep the recovery codes), renew the
 * codes, turn it off. `holdCodes`: an account that must enrol sees nothing else until it is on, so
 * the new status is read only once the recovery codes are said to be kept (else they would vanish
 * with the page).
 */
export function TwoFactorSection({ holdCodes = false }: { holdCodes?: boolean }) {
  const { t } = useTranslation('account');
  const queryClient = useQueryClient();
  const status = useTwoFactor();
  const [code, setCode] = useState('');
  const [codes, setCodes] = useState<string[]>([]);
  const refresh = () => queryClient.invalidateQueries({ queryKey: appKeys.twoFactor() });
  const start = useMutation({ mutationFn: () => data(api.POST('/api/me/two-factor/enrolment')) });
  const confirm = useMutation({
    mutationFn: () => data(api.POST('/api/me/two-factor/enrolment/confirm', { body: { code } })),
    onSuccess: (answer) => {
      setCodes(answer.recoveryCodes);
      setCode('');
      if (!holdCodes) {
        start.reset();
        refresh();
      }
    },
  });
  // The authenticator's key and the recovery codes are shown once.
  useForgetOnLeave(() => {
    start.reset();
    setCodes([]);
  });
  const renew = useMutation({
    mutationFn: () => data(api.POST('/api/me/two-factor/recovery-codes', { body: { code } })),
    onSuccess: (answer) => {
      setCodes(answer.recoveryCodes);
      setCode('');
      refresh();
    },
  });
  const turnOff = useMutation({
    mutationFn: () => data(api.DELETE('/api/me/two-factor', { body: { code } })),
    onSuccess: () => {
      setCode('');
      setCodes([]);
      refresh();
    },
  });
  const onSubmit = (action: { mutate: () => void }) => (event: FormEvent) => {
    event.preventDefault();
    action.mutate();
  };
  const failed = confirm.error ?? renew.error ?? turnOff.error;
  const codeError = fieldErrors(failed).code;
  const codeField = (hint: string) => (
    <Field
      label={t('twoFactor.code')}
      name="code"
      inputMode="numeric"
      autoComplete="one-time-code"
      required
      hint={hint}
      value={code}
      error={codeError}
      onChange={(event) => setCode(event.target.value)}
    />
  );
  const current = status.data;
  if (holdCodes && confirm.isSuccess) {
    return (
      <section className="card" aria-labelledby="two-factor-title">
        <h2 id="two-factor-title">{t('twoFactor.isOn')}</h2>
        <RecoveryCodes codes={codes} />
        <button type="button" className="primary" onClick={refresh}>
          {t('twoFactor.keptCodes')}
        </button>
      </section>
    );
  }
  return (
    <section className="card" aria-labelledby="two-factor-title">
      <h2 id="two-factor-title">{t('twoFactor.title')}</h2>
      {(status.error || start.error || (failed && !codeError)) && (
        <Notice kind="error">{problem(status.error ?? start.error ?? failed)}</Notice>
      )}
      {codes.length > 0 && <RecoveryCodes codes={codes} />}
      {current?.enabled && (
        <>
          <p>
            <Trans
              t={t}
              i18nKey="twoFactor.onSince"
              values={{ since: current.enabledAt ? moment(current.enabledAt) : '—', left: current.recoveryCodesLeft }}
              components={{ strong: <strong /> }}
            />
          </p>
          <form className="form-grid narrow" noValidate aria-label={t('twoFactor.settings')} onSubmit={onSubmit(renew)}>
            {codeField(t('twoFactor.codeOrRecovery'))}
            <div className="actions">
              <button type="submit" className="primary" disabled={renew.isPending}>
                {t('twoFactor.newCodes')}
              </button>
              {!current.required && (
                <button type="button" className="danger" disabled={turnOff.isPending} onClick={() => turnOff.mutate()}>
                  {t('twoFactor.turnOff')}
                </button>
              )}
            </div>
          </form>
        </>
      )}
      {current && !current.enabled && !start.data && (
        <>
          <p>{current.required ? t('twoFactor.required') : t('twoFactor.off')}</p>
          <button type="button" className="primary" disabled={start.isPending} onClick={() => start.mutate()}>
            {t('twoFactor.turnOn')}
          </button>
        </>
      )}
      {current && !current.enabled && start.data && (
        <form className="enrolment" noValidate aria-label={t('twoFactor.confirmForm')} onSubmit={onSubmit(confirm)}>
          <p>{t('twoFactor.scan')}</p>
          <QrCode text={start.data.uri} label={t('twoFactor.qr')} />
          <p>
            {t('twoFactor.key')} <code className="secret">{start.data.secret}</code>
          </p>
          {codeField(t('twoFactor.codeHint'))}
          <div className="actions">
            <button type="submit" className="primary" disabled={confirm.isPending}>
              {t('twoFactor.confirm')}
            </button>
          </div>
        </form>
      )}
    </section>
  );
}
