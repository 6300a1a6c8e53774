import { useMutation } from '@tanstack/react-query';
import { type FormEvent, useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { api, data, problem, useFieldErrors } from '../../../api.ts';
import { Field, FormActions, Notice } from '../../../components/controls.tsx';
import { MoneyField } from '../../../components/number-fields.tsx';
import { amountInput, currentPlatform, readMoney } from '../../../format.ts';
import { type Endpoint, EVENTS, type EventType, PREFIX, type WebhookKind } from './webhook-events.ts';

export type EndpointWithSecret = Endpoint & { secret: string };

/**
 * Adds an endpoint (the answer carries its secret, shown once by the page) or changes one. The
 * balance threshold goes as the decimal string typed: it is money, never sent through a float.
 */
export function EndpointForm({
  kind,
  endpoint,
  onCreated,
  onSaved,
  onCancel,
}: {
  kind: WebhookKind;
  endpoint?: Endpoint;
  onCreated: (created: EndpointWithSecret) => void;
  onSaved: () => void;
  onCancel: () => void;
}) {
  const { t } = useTranslation('shared');
  const [url, setUrl] = useState(endpoint?.url ?? 'https://');
  const form = useRef<HTMLFormElement>(null);
  // Opened by a button: the keyboard goes on in the form's first field.
  useEffect(() => form.current?.querySelector<HTMLElement>('input, select')?.focus(), []);
  const [description, setDescription] = useState(endpoint?.description ?? '');
  const [events, setEvents] = useState<string[]>(endpoint?.events ?? []);
  const [threshold, setThreshold] = useState(endpoint?.balanceThreshold == null ? '' : amountInput(endpoint.balanceThreshold));
  const [thresholdError, setThresholdError] = useState<string | undefined>();
  const [active, setActive] = useState(endpoint?.active ?? true);
  const chosen = EVENTS[kind].map((event) => event.type).filter((type): type is EventType => events.includes(type));
  const save = useMutation({
    mutationFn: async (balanceThreshold: string | null) => {
      const body = { url: url.trim(), description, events: chosen, active, balanceThreshold };
      if (endpoint) {
        await data(api.PUT(`${PREFIX[kind]}/webhooks/{id}`, { params: { path: { id: endpoint.id } }, body }));
        return undefined;
      }
      return data(api.POST(`${PREFIX[kind]}/webhooks`, { body }));
    },
    onSuccess: (created) => (created ? onCreated(created) : onSaved()),
  });
  const { errors, general, edited, submitted } = useFieldErrors(save.error);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    submitted();
    // Money, read as every amount of the account's forms is (readMoney): "1,000" is a thousand.
    const read = readMoney(threshold, { optional: true, zero: true });
    setThresholdError(read.ok ? undefined : read.message);
    if (read.ok) save.mutate(read.value);
  };
  const heading = endpoint ? t('endpoint.change', { url: endpoint.url }) : t('endpoint.new');
  return (
    <form ref={form} className="card form-grid" onSubmit={submit} noValidate aria-label={heading}>
      <h2>{heading}</h2>
      {general && <Notice kind="error">{problem(save.error)}</Notice>}
      <Field
        label="URL"
        name="url"
        type="url"
        inputMode="url"
        hint={t('endpoint.urlHint')}
        value={url}
        error={errors.url}
        onChange={(event) => {
          setUrl(event.target.value);
          edited('url');
        }}
      />
      <Field
        label={t('endpoint.note')}
        name="description"
        hint={t('endpoint.noteHint')}
        value={description}
        error={errors.description}
        onChange={(event) => {
          setDescription(event.target.value);
          edited('description');
        }}
      />
      <fieldset className="events" aria-describedby={errors.events ? 'events-error' : undefined}>
        <legend>{t('webhooks.column.events')}</legend>
        {EVENTS[kind].map((event) => (
          <label key={event.type} className="check">
            <input
              type="checkbox"
              checked={events.includes(event.type)}
              onChange={(change) => {
                setEvents((current) =>
                  change.target.checked ? [...current, event.type] : current.filter((type) => type !== event.type),
                );
                edited('events');
              }}
            />
            <span>
              <code>{event.type}</code> <span className="sub">{t(event.meaning)}</span>
            </span>
          </label>
        ))}
        {errors.events && (
          <p className="error" id="events-error">
            {errors.events}
          </p>
        )}
      </fieldset>
      <MoneyField
        label={t('endpoint.threshold', { currency: currentPlatform().currency })}
        name="balanceThreshold"
        hint={t('endpoint.thresholdHint', { event: 'balance.below_threshold' })}
        value={threshold}
        error={thresholdError ?? errors.balanceThreshold}
        onChange={(event) => {
          setThreshold(event.target.value);
          setThresholdError(undefined);
          edited('balanceThreshold');
        }}
      />
      <label className="check">
        <input type="checkbox" checked={active} onChange={(event) => setActive(event.target.checked)} />
        {t('endpoint.active')}
      </label>
      <FormActions submit={endpoint ? t('endpoint.save') : t('endpoint.add')} pending={save.isPending} onCancel={onCancel} />
    </form>
  );
}
