import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { api, data, problem, useFieldErrors } from '../../api.ts';
import { Field, Notice, Options } from '../../components/controls.tsx';
import { Tile } from '../../components/figures.tsx';
import { fineMoney, moment } from '../../format.ts';
import { publisherKeys } from './publisher-keys.ts';
import { translatedNames } from './publisher-ui.tsx';

const METHODS = {
  bank_transfer: 'payoutDetails.method.bankTransfer',
  paypal: 'payoutDetails.method.paypal',
  wise: 'payoutDetails.method.wise',
  crypto: 'payoutDetails.method.crypto',
  other: 'payoutDetails.method.other',
} as const;
type Method = keyof typeof METHODS;

const ACCOUNT_HINTS = {
  bank_transfer: 'payoutDetails.accountHint.bankTransfer',
  paypal: 'payoutDetails.accountHint.paypal',
  wise: 'payoutDetails.accountHint.wise',
  crypto: 'payoutDetails.accountHint.crypto',
  other: 'payoutDetails.accountHint.other',
} as const satisfies Record<Method, string>;

/** What the next payout will pay, the platform's minimum, and where the publisher is paid. */
export function PayoutDetails() {
  const { t } = useTranslation('publisher');
  const queryClient = useQueryClient();
  const summary = useQuery({
    queryKey: publisherKeys.payoutSummary(),
    queryFn: () => data(api.GET('/api/webmaster/payout-summary')),
  });
  const [form, setForm] = useState<{ method: Method; holder: string; account: string } | null>(null);
  const current = summary.data;
  const shown = form ?? {
    method: (current?.details?.method ?? 'bank_transfer') as Method,
    holder: current?.details?.holder ?? '',
    account: current?.details?.account ?? '',
  };
  const save = useMutation({
    mutationFn: () => data(api.PUT('/api/webmaster/payout-details', { body: shown })),
    onSuccess: (answer) => {
      queryClient.setQueryData(publisherKeys.payoutSummary(), answer);
      setForm(null);
    },
  });
  const { errors, edited } = useFieldErrors(save.error);
  const set = (name: 'method' | 'holder' | 'account', value: string) => {
    setForm({ ...shown, [name]: value });
    edited(name);
  };
  const submit = (event: FormEvent) => {
    event.preventDefault();
    save.mutate();
  };
  const reason = !current
    ? ''
    : current.details === null
      ? t('payoutDetails.reason.noDetails')
      : current.balance < current.minimum
        ? t('payoutDetails.reason.belowMinimum', { minimum: fineMoney(current.minimum) })
        : t('payoutDetails.reason.nextRun');
  return (
    <>
      <section className="tiles" aria-label={t('payoutDetails.next')}>
        <Tile label={t('payoutDetails.willBePaid')} value={current ? fineMoney(current.payable) : '…'} note={reason} />
        <Tile
          label={t('payoutDetails.minimum')}
          value={current ? fineMoney(current.minimum) : '…'}
          note={t('payoutDetails.minimumNote')}
        />
      </section>
      {summary.error && <Notice kind="error">{problem(summary.error)}</Notice>}
      <section className="card" aria-labelledby="payout-details-title">
        <h2 id="payout-details-title">{t('payoutDetails.title')}</h2>
        {current?.details && <p className="hint">{t('payoutDetails.lastChanged', { when: moment(current.details.updated) })}</p>}
        <form onSubmit={submit} noValidate className="payout-details">
          <div className="field">
            <label htmlFor="field-method">{t('payoutDetails.method')}</label>
            <select id="field-method" value={shown.method} onChange={(event) => set('method', event.target.value)}>
              <Options names={translatedNames(METHODS, t)} />
            </select>
          </div>
          <Field
            label={t('payoutDetails.holder')}
            name="holder"
            maxLength={200}
            autoComplete="name"
            value={shown.holder}
            error={errors.holder ? t('payoutDetails.holderError') : undefined}
            onChange={(event) => set('holder', event.target.value)}
          />
          <Field
            label={t('payoutDetails.account')}
            name="account"
            maxLength={500}
            value={shown.account}
            hint={t(ACCOUNT_HINTS[shown.method])}
            error={errors.account ? t('payoutDetails.accountError') : undefined}
            onChange={(event) => set('account', event.target.value)}
          />
          <div className="actions">
            <button type="submit" className="primary" disabled={save.isPending || form === null}>
              {t('payoutDetails.save')}
            </button>
          </div>
        </form>
        {save.isSuccess && <Notice kind="ok">{t('payoutDetails.saved')}</Notice>}
      </section>
    </>
  );
}
