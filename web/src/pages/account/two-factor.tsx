import { useMutation, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { api, data, fieldErrors, problem } from '../../api.ts';
import { Field, Notice } from '../../components/controls.tsx';
import { moment } from '../../format.ts';
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
  const queryClient = useQueryClient();
  const status = useTwoFactor();
  const [code, setCode] = useState('');
  const [codes, setCodes] = useState<string[]>([]);
  const refresh = () => queryClient.invalidateQueries({ queryKey: ['two-factor'] });
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
      label="Code"
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
        <h2 id="two-factor-title">Two-factor sign-in is on</h2>
        <RecoveryCodes codes={codes} />
        <button type="button" className="primary" onClick={refresh}>
          I have kept my recovery codes
        </button>
      </section>
    );
  }
  return (
    <section className="card" aria-labelledby="two-factor-title">
      <h2 id="two-factor-title">Two-factor sign-in</h2>
      {(status.error || start.error || (failed && !codeError)) && (
        <Notice kind="error">{problem(status.error ?? start.error ?? failed)}</Notice>
      )}
      {codes.length > 0 && <RecoveryCodes codes={codes} />}
      {current?.enabled && (
        <>
          <p>
            On since {current.enabledAt ? moment(current.enabledAt) : '—'}: signing in with your password also asks for the code
            of your authenticator app. Recovery codes left: <strong>{current.recoveryCodesLeft}</strong> of 10.
          </p>
          <form className="form-grid narrow" noValidate aria-label="Two-factor settings" onSubmit={onSubmit(renew)}>
            {codeField('The code your app shows now, or a recovery code.')}
            <div className="actions">
              <button type="submit" className="primary" disabled={renew.isPending}>
                New recovery codes
              </button>
              {!current.required && (
                <button type="button" className="danger" disabled={turnOff.isPending} onClick={() => turnOff.mutate()}>
                  Turn off
                </button>
              )}
            </div>
          </form>
        </>
      )}
      {current && !current.enabled && !start.data && (
        <>
          <p>
            {current.required
              ? 'Your account must have two-factor sign-in. Turn it on to go on.'
              : 'Off. With it on, signing in with your password also asks for a code from an authenticator app on your phone.'}
          </p>
          <button type="button" className="primary" disabled={start.isPending} onClick={() => start.mutate()}>
            Turn on two-factor sign-in
          </button>
        </>
      )}
      {current && !current.enabled && start.data && (
        <form className="enrolment" noValidate aria-label="Confirm two-factor sign-in" onSubmit={onSubmit(confirm)}>
          <p>Scan this code with an authenticator app (or type the key), then enter the 6-digit code it shows.</p>
          <QrCode text={start.data.uri} label="QR code of the two-factor secret" />
          <p>
            Key: <code className="secret">{start.data.secret}</code>
          </p>
          {codeField('6 digits; a new one every 30 seconds.')}
          <div className="actions">
            <button type="submit" className="primary" disabled={confirm.isPending}>
              Confirm
            </button>
          </div>
        </form>
      )}
    </section>
  );
}
