import type { operations } from '@nativa/sdk';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { api, data, FIELD_LIMITS, problem, useFieldErrors } from '../../api.ts';
import { Field, Notice } from '../../components/controls.tsx';
import { moment } from '../../format.ts';
import { LANGUAGE_NAMES, LANGUAGES } from '../../i18n/i18n.ts';
import { operatorKeys } from './operator-keys.ts';

type AdminUser = operations['adminGetUser']['responses'][200]['content']['application/json'];

/**
 * Suspending an advertiser or a publisher, and lifting it (docs/operating.md): a suspension ends
 * the account's sessions and tokens and stops what it serves, so the page asks for a reason first.
 */
export function AccountStanding({ user }: { user: AdminUser }) {
  const { t } = useTranslation('operator');
  const client = useQueryClient();
  const [asking, setAsking] = useState(false);
  const [reason, setReason] = useState('');
  const done = (account: AdminUser) => {
    client.setQueryData(operatorKeys.account(user.id), account);
    void client.invalidateQueries({ queryKey: operatorKeys.accountTokens(user.id) });
    void client.invalidateQueries({ queryKey: operatorKeys.accounts.all() });
    setAsking(false);
    setReason('');
  };
  const suspend = useMutation({
    mutationFn: () =>
      data(api.POST('/api/admin/users/{id}/suspension', { params: { path: { id: user.id } }, body: { reason: reason.trim() } })),
    onSuccess: done,
  });
  const reinstate = useMutation({
    mutationFn: () => data(api.DELETE('/api/admin/users/{id}/suspension', { params: { path: { id: user.id } } })),
    onSuccess: done,
  });
  const fields = useFieldErrors(suspend.error);
  if (user.type === 'operator') return null;
  const submit = (event: FormEvent) => {
    event.preventDefault();
    fields.submitted();
    suspend.mutate();
  };
  return (
    <section className="card" aria-labelledby="standing-title">
      <h2 id="standing-title">{t('standing.title')}</h2>
      {(fields.general || reinstate.error) && <Notice kind="error">{problem(suspend.error ?? reinstate.error)}</Notice>}
      {user.suspendedAt ? (
        <>
          <p className="notice error" role="status">
            {t('standing.suspendedOn', { date: moment(user.suspendedAt) })} {user.suspensionReason}
          </p>
          <p>{t('standing.suspendedMeaning')}</p>
          <div className="actions">
            <button type="button" onClick={() => reinstate.mutate()} disabled={reinstate.isPending}>
              {t('standing.reinstate')}
            </button>
          </div>
        </>
      ) : asking ? (
        <form className="form-grid" onSubmit={submit} noValidate>
          <p>{t('standing.suspendMeaning', { kind: t(user.type === 'advertiser' ? 'standing.ads' : 'standing.blocks') })}</p>
          <Field
            label={t('standing.reason')}
            name="suspension-reason"
            value={reason}
            maxLength={FIELD_LIMITS.adminSuspendUser.reason.maxLength}
            error={fields.errors.reason}
            hint={t('standing.reasonHint')}
            onChange={(event) => {
              fields.edited('reason');
              setReason(event.target.value);
            }}
          />
          <div className="actions">
            <button type="submit" className="danger" disabled={suspend.isPending}>
              {t('standing.suspendNow', { username: user.username })}
            </button>
            <button type="button" onClick={() => setAsking(false)}>
              {t('standing.cancel')}
            </button>
          </div>
        </form>
      ) : (
        <>
          <p>{t('standing.active')}</p>
          <div className="actions">
            <button type="button" className="danger" onClick={() => setAsking(true)}>
              {t('standing.suspend')}
            </button>
          </div>
        </>
      )}
    </section>
  );
}

const EDITABLE = ['name', 'email', 'url', 'phone', 'telegram', 'whatsapp', 'skype'] as const;
type Editable = (typeof EDITABLE)[number];

/** An account's contact details and language, as an operator corrects them. */
export function EditAccount({ user }: { user: AdminUser }) {
  const { t } = useTranslation('operator');
  const client = useQueryClient();
  const [open, setOpen] = useState(false);
  const initial = () => ({
    ...(Object.fromEntries(EDITABLE.map((name) => [name, user[name]])) as Record<Editable, string>),
    language: user.language,
  });
  const [values, setValues] = useState(initial);
  const save = useMutation({
    mutationFn: () => {
      const body: Partial<Record<Editable, string>> & { language?: 'en' | 'ru' } = {};
      for (const name of EDITABLE) if (values[name] !== user[name]) body[name] = values[name].trim();
      if (values.language !== user.language) body.language = values.language;
      return data(api.PATCH('/api/admin/users/{id}', { params: { path: { id: user.id } }, body }));
    },
    onSuccess: (account) => {
      client.setQueryData(operatorKeys.account(user.id), account);
      void client.invalidateQueries({ queryKey: operatorKeys.accounts.all() });
      setOpen(false);
    },
  });
  const fields = useFieldErrors(save.error);
  if (!open) {
    return (
      <div className="actions">
        {save.isSuccess && <Notice kind="ok">{t('edit.saved')}</Notice>}
        <button
          type="button"
          onClick={() => {
            setValues(initial());
            save.reset();
            setOpen(true);
          }}
        >
          {t('edit.open')}
        </button>
      </div>
    );
  }
  return (
    <form
      className="card form-grid"
      aria-labelledby="edit-title"
      noValidate
      onSubmit={(event) => {
        event.preventDefault();
        fields.submitted();
        save.mutate();
      }}
    >
      <h2 id="edit-title">{t('edit.title')}</h2>
      <p className="hint">{t('edit.lead')}</p>
      {fields.general && <Notice kind="error">{problem(save.error)}</Notice>}
      {EDITABLE.map((name) => (
        <Field
          key={name}
          label={t(`edit.field.${name}`)}
          name={`edit-${name}`}
          type={name === 'email' ? 'email' : 'text'}
          value={values[name]}
          maxLength={FIELD_LIMITS.adminEditUser[name].maxLength}
          error={fields.errors[name]}
          hint={name === 'email' ? t('edit.emailHint') : undefined}
          onChange={(event) => {
            fields.edited(name);
            setValues({ ...values, [name]: event.target.value });
          }}
        />
      ))}
      <Field label={t('edit.field.language')} name="edit-language">
        <select
          id="field-edit-language"
          value={values.language}
          onChange={(event) => setValues({ ...values, language: event.target.value === 'ru' ? 'ru' : 'en' })}
        >
          {LANGUAGES.map((language) => (
            <option key={language} value={language}>
              {LANGUAGE_NAMES[language]}
            </option>
          ))}
        </select>
      </Field>
      <div className="actions">
        <button type="submit" className="primary" disabled={save.isPending}>
          {t('edit.save')}
        </button>
        <button type="button" onClick={() => setOpen(false)}>
          {t('edit.cancel')}
        </button>
      </div>
    </form>
  );
}
