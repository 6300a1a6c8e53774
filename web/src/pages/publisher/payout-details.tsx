import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { api, data, problem, useFieldErrors } from '../../api.ts';
import { Field, Notice, Options } from '../../components/controls.tsx';
import { Tile } from '../../components/figures.tsx';
import { fineMoney, moment } from '../../format.ts';

const METHODS = {
  bank_transfer: 'Bank transfer',
  paypal: 'PayPal',
  wise: 'Wise',
  crypto: 'Crypto wallet',
  other: 'Other',
} as const;
type Method = keyof typeof METHODS;

const ACCOUNT_HINTS: Record<Method, string> = {
  bank_transfer: 'IBAN and BIC, or account number and bank code.',
  paypal: 'The e-mail address of your PayPal account.',
  wise: 'The e-mail address or account details of your Wise account.',
  crypto: 'The wallet address and its network.',
  other: 'How and where to pay you.',
};

const SUMMARY = ['payout-summary'] as const;

/** What the next payout will pay, the platform's minimum, and where the publisher is paid. */
export function PayoutDetails() {
  const queryClient = useQueryClient();
  const summary = useQuery({ queryKey: SUMMARY, queryFn: () => data(api.GET('/api/webmaster/payout-summary')) });
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
      queryClient.setQueryData(SUMMARY, answer);
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
      ? 'Give your payout details below to be paid.'
      : current.balance < current.minimum
        ? `Paid once your balance reaches ${fineMoney(current.minimum)}.`
        : 'Paid at the next payout run.';
  return (
    <>
      <section className="tiles" aria-label="Next payout">
        <Tile label="Will be paid" value={current ? fineMoney(current.payable) : '…'} note={reason} />
        <Tile label="Minimum payout" value={current ? fineMoney(current.minimum) : '…'} note="set by the network" />
      </section>
      {summary.error && <Notice kind="error">{problem(summary.error)}</Notice>}
      <section className="card" aria-labelledby="payout-details-title">
        <h2 id="payout-details-title">Payout details</h2>
        {current?.details && <p className="hint">Last changed {moment(current.details.updated)}.</p>}
        <form onSubmit={submit} noValidate className="payout-details">
          <div className="field">
            <label htmlFor="field-method">Method</label>
            <select id="field-method" value={shown.method} onChange={(event) => set('method', event.target.value)}>
              <Options names={METHODS} />
            </select>
          </div>
          <Field
            label="Account holder"
            name="holder"
            maxLength={200}
            autoComplete="name"
            value={shown.holder}
            error={errors.holder ? 'Write whose account it is.' : undefined}
            onChange={(event) => set('holder', event.target.value)}
          />
          <Field
            label="Account"
            name="account"
            maxLength={500}
            value={shown.account}
            hint={ACCOUNT_HINTS[shown.method]}
            error={errors.account ? 'Write where to pay you.' : undefined}
            onChange={(event) => set('account', event.target.value)}
          />
          <div className="actions">
            <button type="submit" className="primary" disabled={save.isPending || form === null}>
              Save payout details
            </button>
          </div>
        </form>
        {save.isSuccess && <Notice kind="ok">Saved. The operators pay to these details from now on.</Notice>}
      </section>
    </>
  );
}
