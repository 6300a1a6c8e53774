import { type InputHTMLAttributes, type ReactNode, useEffect, useRef } from 'react';
import { useTranslation } from 'react-i18next';

/** An on/off switch: a checkbox with the switch role, named for what it turns on. */
export function Switch({
  checked,
  label,
  onChange,
  disabled,
}: {
  checked: boolean;
  label: string;
  onChange: (checked: boolean) => void;
  disabled?: boolean;
}) {
  return (
    <label className="switch">
      <input
        type="checkbox"
        role="switch"
        checked={checked}
        aria-checked={checked}
        disabled={disabled}
        aria-label={label}
        onChange={(event) => onChange(event.target.checked)}
      />
      <span aria-hidden="true" />
    </label>
  );
}

/** A labelled form field with its hint and, after a refused submit, the API's error for it. */
export function Field({
  label,
  name,
  error,
  hint,
  children,
  ...input
}: InputHTMLAttributes<HTMLInputElement> & { label: string; name: string; error?: string; hint?: string; children?: ReactNode }) {
  const describedBy = [hint ? `${name}-hint` : '', error ? `${name}-error` : ''].filter(Boolean).join(' ') || undefined;
  return (
    <div className={`field${error ? ' invalid' : ''}`}>
      <label htmlFor={`field-${name}`}>{label}</label>
      {children ?? (
        <input
          id={`field-${name}`}
          name={name}
          aria-invalid={error ? true : undefined}
          aria-describedby={describedBy}
          {...input}
        />
      )}
      {hint && (
        <p className="hint" id={`${name}-hint`}>
          {hint}
        </p>
      )}
      {error && (
        <p className="error" id={`${name}-error`}>
          {error}
        </p>
      )}
    </div>
  );
}

/** A select's options: each of `values` (by default every key of `names`), shown by its name. */
export function Options<V extends string>({ names, values }: { names: Record<V, string>; values?: readonly V[] }) {
  return (values ?? (Object.keys(names) as V[])).map((value) => (
    <option key={value} value={value}>
      {names[value]}
    </option>
  ));
}

/** Under a list: "Loading…" while its query runs, then `children` if it came back empty. */
export function ListStatus({
  query,
  empty,
  children,
}: {
  query: { isPending: boolean; isSuccess: boolean };
  empty: boolean;
  children: ReactNode;
}) {
  const { t } = useTranslation();
  if (query.isPending) return <p className="empty">{t('app.loading')}</p>;
  return query.isSuccess && empty ? <p className="empty">{children}</p> : null;
}

export function Notice({ kind, children }: { kind: 'error' | 'ok'; children: ReactNode }) {
  return (
    <p className={`notice ${kind}`} role={kind === 'error' ? 'alert' : 'status'}>
      {children}
    </p>
  );
}

/** A form's buttons: submit (saying `busy` while it is sent, when given) and cancel. */
export function FormActions({
  submit,
  busy,
  pending,
  onCancel,
}: {
  submit: string;
  busy?: string;
  pending: boolean;
  onCancel: () => void;
}) {
  const { t } = useTranslation();
  return (
    <div className="actions">
      <button type="submit" className="primary" disabled={pending}>
        {pending && busy ? busy : submit}
      </button>
      <button type="button" onClick={onCancel}>
        {t('action.cancel')}
      </button>
    </div>
  );
}

/**
 * The step before money moves: what is about to happen, written with the formatted amount
 * ("Credit €1,000.00 to acme?"), and the button that does it. The focus goes to it, so the person
 * reads the amount before anything is sent.
 */
export function ConfirmMove({
  text,
  confirm,
  pending,
  onConfirm,
  onCancel,
}: {
  text: string;
  confirm: string;
  pending: boolean;
  onConfirm: () => void;
  onCancel: () => void;
}) {
  const { t } = useTranslation();
  const question = useRef<HTMLParagraphElement>(null);
  useEffect(() => question.current?.focus(), []);
  return (
    <fieldset className="confirm-move">
      <legend className="visually-hidden">{t('action.confirm')}</legend>
      <p ref={question} tabIndex={-1}>
        {text}
      </p>
      <div className="actions">
        <button type="button" className="primary" disabled={pending} onClick={onConfirm}>
          {confirm}
        </button>
        <button type="button" disabled={pending} onClick={onCancel}>
          {t('action.cancel')}
        </button>
      </div>
    </fieldset>
  );
}
