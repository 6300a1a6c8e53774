import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useEffect, useId, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { api, data, problem, useFieldErrors } from '../../api.ts';
import { Notice } from '../../components/controls.tsx';
import { operatorKeys } from './operator-keys.ts';

const REASON_MAX = 1000;

const fetchReasons = () => data(api.GET('/api/admin/moderation-reasons'));

/**
 * What an operator writes before rejecting: a reason from the list, and/or words of their own.
 * The owner reads the result where the object is, in a notification and by e-mail.
 */
export function RejectForm({
  verb,
  name,
  pending,
  onReject,
  onCancel,
}: {
  verb: string;
  name: string;
  pending: boolean;
  onReject: (reason: string) => void;
  onCancel: () => void;
}) {
  const { t } = useTranslation('operator');
  const reasons = useQuery({ queryKey: operatorKeys.moderation.reasons(), queryFn: fetchReasons });
  const [chosen, setChosen] = useState('');
  const [details, setDetails] = useState('');
  const [missing, setMissing] = useState(false);
  const id = useId();
  const first = useRef<HTMLSelectElement>(null);
  useEffect(() => first.current?.focus(), []);
  const reason = [chosen, details.trim()].filter(Boolean).join(' — ');
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (reason === '') {
      setMissing(true);
      return;
    }
    onReject(reason.slice(0, REASON_MAX));
  };
  return (
    <form className="reject-form" onSubmit={submit} noValidate aria-label={`${verb} ${name}`}>
      <div className="field">
        <label htmlFor={`${id}-reason`}>{t('reasons.reason')}</label>
        <select id={`${id}-reason`} ref={first} value={chosen} onChange={(event) => setChosen(event.target.value)}>
          <option value="">{reasons.data?.length ? t('reasons.choose') : t('reasons.noneSaved')}</option>
          {reasons.data?.map((item) => (
            <option key={item.id} value={item.text}>
              {item.text}
            </option>
          ))}
        </select>
      </div>
      <div className={`field${missing && reason === '' ? ' invalid' : ''}`}>
        <label htmlFor={`${id}-details`}>{t('reasons.inYourWords')}</label>
        <textarea
          id={`${id}-details`}
          rows={2}
          maxLength={REASON_MAX - chosen.length - 3}
          value={details}
          aria-invalid={missing && reason === '' ? true : undefined}
          aria-describedby={missing && reason === '' ? `${id}-error` : undefined}
          onChange={(event) => setDetails(event.target.value)}
        />
        {missing && reason === '' && (
          <p className="error" id={`${id}-error`}>
            {t('reasons.sayWhy')}
          </p>
        )}
      </div>
      <div className="actions">
        <button type="submit" className="danger" disabled={pending}>
          {verb}
        </button>
        <button type="button" onClick={onCancel}>
          {t('reasons.cancel')}
        </button>
      </div>
    </form>
  );
}

/** The operator's list of reasons: add, reword, remove. */
export function ModerationReasons() {
  const { t } = useTranslation('operator');
  const queryClient = useQueryClient();
  const reasons = useQuery({ queryKey: operatorKeys.moderation.reasons(), queryFn: fetchReasons });
  const refresh = () => queryClient.invalidateQueries({ queryKey: operatorKeys.moderation.reasons() });
  const [text, setText] = useState('');
  const add = useMutation({
    mutationFn: () => data(api.POST('/api/admin/moderation-reasons', { body: { text } })),
    onSuccess: () => setText(''),
    onSettled: refresh,
  });
  const remove = useMutation({
    mutationFn: (id: number) => data(api.DELETE('/api/admin/moderation-reasons/{id}', { params: { path: { id } } })),
    onSettled: refresh,
  });
  const { errors } = useFieldErrors(add.error);
  return (
    <section aria-labelledby="reasons-title">
      <h2 id="reasons-title">{t('reasons.title')}</h2>
      <p className="hint">{t('reasons.hint')}</p>
      {(reasons.error || remove.error) && <Notice kind="error">{problem(reasons.error ?? remove.error)}</Notice>}
      <ul className="queue">
        {reasons.data?.map((reason) => (
          <ReasonRow key={reason.id} reason={reason} onRemove={() => remove.mutate(reason.id)} onSaved={refresh} />
        ))}
      </ul>
      {reasons.data?.length === 0 && <p className="empty">{t('reasons.empty')}</p>}
      <form
        className="card reason-add"
        onSubmit={(event) => {
          event.preventDefault();
          add.mutate();
        }}
        noValidate
      >
        <div className={`field${errors.text ? ' invalid' : ''}`}>
          <label htmlFor="new-reason">{t('reasons.new')}</label>
          <input
            id="new-reason"
            maxLength={500}
            value={text}
            onChange={(event) => setText(event.target.value)}
            aria-invalid={errors.text ? true : undefined}
            aria-describedby={errors.text ? 'new-reason-error' : undefined}
          />
          {errors.text && (
            <p className="error" id="new-reason-error">
              {t('reasons.writeFirst')}
            </p>
          )}
        </div>
        <div className="actions">
          <button type="submit" className="primary" disabled={add.isPending}>
            {t('reasons.add')}
          </button>
        </div>
      </form>
    </section>
  );
}

function ReasonRow({
  reason,
  onRemove,
  onSaved,
}: {
  reason: { id: number; text: string };
  onRemove: () => void;
  onSaved: () => void;
}) {
  const { t } = useTranslation('operator');
  const [text, setText] = useState(reason.text);
  const save = useMutation({
    mutationFn: () =>
      data(api.PUT('/api/admin/moderation-reasons/{id}', { params: { path: { id: reason.id } }, body: { text } })),
    onSettled: onSaved,
  });
  const id = useId();
  return (
    <li className="card reason-row">
      <form
        onSubmit={(event) => {
          event.preventDefault();
          save.mutate();
        }}
        noValidate
      >
        <label htmlFor={id} className="visually-hidden">
          {t('reasons.rowLabel', { text: reason.text })}
        </label>
        <input id={id} maxLength={500} value={text} onChange={(event) => setText(event.target.value)} />
        <button type="submit" disabled={save.isPending || text.trim() === reason.text || text.trim() === ''}>
          {t('reasons.save')}
          <span className="visually-hidden"> {reason.text}</span>
        </button>
        <button type="button" className="danger" onClick={onRemove}>
          {t('reasons.remove')}
          <span className="visually-hidden"> {reason.text}</span>
        </button>
      </form>
      {save.error && <Notice kind="error">{problem(save.error)}</Notice>}
    </li>
  );
}
