import type { operations } from '@nativa/sdk';
import { useMutation } from '@tanstack/react-query';
import { type ChangeEvent, type FormEvent, useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { api, data, problem, useFieldErrors } from '../../api.ts';
import { Field, FormActions, Notice, Options } from '../../components/controls.tsx';
import { MoneyField, WholeNumberField } from '../../components/number-fields.tsx';
import { currentPlatform, readMoney, readWholeNumber } from '../../format.ts';
import { type AdvertiserKey, translateNames } from './advertiser-data.ts';

export type Rule = operations['getRule']['responses'][200]['content']['application/json'];
type Scope = Rule['scope'];
type Metric = Rule['metric'];
type Comparison = Rule['comparison'];
type Action = Rule['action'];

export const SCOPES: Record<Scope, AdvertiserKey> = {
  site: 'rule.scope.site',
  block: 'rule.scope.block',
  device: 'rule.scope.device',
  ad: 'rule.scope.ad',
};
export const METRICS: Record<Metric, AdvertiserKey> = {
  cpa: 'rule.metric.cpa',
  ctr: 'rule.metric.ctr',
  conversions: 'rule.metric.conversions',
  spend_without_conversion: 'rule.metric.spendWithoutConversion',
};
/** Signs, the same in every language. */
export const COMPARISONS: Record<Comparison, string> = { gt: '>', gte: '≥', lt: '<', lte: '≤' };
export const ACTIONS: Record<Action, AdvertiserKey> = {
  set_coefficient: 'rule.action.setCoefficient',
  block: 'rule.action.block',
  pause: 'rule.action.pause',
};

/** The actions the API allows for a scope: an ad can only be paused, the other objects get coefficients. */
const actionsFor = (scope: Scope): Action[] => (scope === 'ad' ? ['pause'] : ['set_coefficient', 'block']);

function thresholdUnit(metric: Metric, t: (key: AdvertiserKey) => string): string {
  if (metric === 'ctr') return '%';
  if (metric === 'conversions') return t('rule.unit.conversions');
  return currentPlatform().currency;
}

interface Draft {
  title: string;
  scope: Scope;
  metric: Metric;
  comparison: Comparison;
  threshold: string;
  windowDays: string;
  minClicks: string;
  action: Action;
  coef: string;
  enabled: boolean;
}

const EMPTY: Draft = {
  title: '',
  scope: 'site',
  metric: 'cpa',
  comparison: 'gt',
  threshold: '',
  windowDays: '7',
  minClicks: '0',
  action: 'set_coefficient',
  coef: '0.5',
  enabled: true,
};

const draftOf = (rule: Rule): Draft => ({
  title: rule.title,
  scope: rule.scope,
  metric: rule.metric,
  comparison: rule.comparison,
  threshold: String(rule.threshold),
  windowDays: String(rule.windowDays),
  minClicks: String(rule.minClicks),
  action: rule.action,
  coef: rule.coef === null ? '0.5' : String(rule.coef),
  enabled: rule.enabled,
});

/** The numbers of a draft as read by the advertiser's forms' one reading (format.ts), or why not. */
function readNumbers(draft: Draft) {
  return {
    threshold: readMoney(draft.threshold, { zero: true }),
    windowDays: readWholeNumber(draft.windowDays),
    minClicks: readWholeNumber(draft.minClicks),
  };
}

/**
 * The rule as the API takes it. The threshold goes as the decimal string read (it can be money:
 * never through a float), the window and minimum clicks as the whole numbers read. A coefficient
 * left empty or not a number goes as null (JSON's NaN), so that the refusal comes from the API,
 * beside the field, in the API's words.
 */
function bodyOf(draft: Draft, numbers: { threshold: string; windowDays: number; minClicks: number }) {
  const number = (text: string) => Number(text.trim() || Number.NaN);
  return {
    title: draft.title,
    scope: draft.scope,
    metric: draft.metric,
    comparison: draft.comparison,
    ...numbers,
    action: draft.action,
    ...(draft.action === 'set_coefficient' ? { coef: number(draft.coef) } : {}),
    enabled: draft.enabled,
  };
}

/** Creates a rule, or replaces `rule` whole (the API's PUT), with the API's refusals beside the fields. */
export function RuleForm({
  campaignId,
  rule,
  onDone,
  onCancel,
}: {
  campaignId: number;
  rule?: Rule;
  onDone: (saved: Rule) => void;
  onCancel: () => void;
}) {
  const { t } = useTranslation('advertiser');
  const [draft, setDraft] = useState<Draft>(rule ? draftOf(rule) : EMPTY);
  const form = useRef<HTMLFormElement>(null);
  // Opened by a button: the keyboard goes on in the form's first field.
  useEffect(() => form.current?.querySelector<HTMLElement>('input, select')?.focus(), []);
  const save = useMutation({
    mutationFn: (numbers: { threshold: string; windowDays: number; minClicks: number }) => {
      const body = bodyOf(draft, numbers);
      return rule
        ? data(
            api.PUT('/api/advertiser/campaigns/rules/{campaign}/{id}', {
              params: { path: { campaign: campaignId, id: rule.id } },
              body,
            }),
          )
        : data(api.POST('/api/advertiser/campaigns/rules/{campaign}', { params: { path: { campaign: campaignId } }, body }));
    },
    onSuccess: onDone,
  });
  const { errors, general, edited, submitted } = useFieldErrors(save.error);
  const change = <K extends keyof Draft>(name: K, value: Draft[K]) => {
    setDraft((current) => {
      const next = { ...current, [name]: value };
      // Keep the action one the API allows for the scope, rather than let it refuse the pair.
      if (name === 'scope' && !actionsFor(next.scope).includes(next.action)) next.action = actionsFor(next.scope)[0] ?? 'block';
      return next;
    });
    edited(name);
  };
  const [local, setLocal] = useState<Partial<Record<string, string>>>({});
  const submit = (event: FormEvent) => {
    event.preventDefault();
    submitted();
    const { threshold, windowDays, minClicks } = readNumbers(draft);
    setLocal({
      threshold: threshold.ok ? undefined : threshold.message,
      windowDays: windowDays.ok ? undefined : windowDays.message,
      minClicks: minClicks.ok ? undefined : minClicks.message,
    });
    if (threshold.ok && windowDays.ok && minClicks.ok)
      save.mutate({ threshold: threshold.value ?? '0', windowDays: windowDays.value ?? 0, minClicks: minClicks.value ?? 0 });
  };
  /** What a text field of the draft takes: its name, value, the API's refusal and the edit. */
  const textField = (name: 'title' | 'threshold' | 'windowDays' | 'minClicks' | 'coef') => ({
    name,
    value: draft[name],
    error: local[name] ?? errors[name],
    onChange: (event: ChangeEvent<HTMLInputElement>) => {
      setLocal((current) => ({ ...current, [name]: undefined }));
      change(name, event.target.value);
    },
  });
  /** What a select of the draft takes; its options are the API's values, so the cast only narrows. */
  const choice = <K extends 'scope' | 'metric' | 'comparison' | 'action'>(name: K) => ({
    id: `field-${name}`,
    'aria-invalid': errors[name] ? true : undefined,
    'aria-describedby': errors[name] ? `${name}-error` : undefined,
    value: draft[name],
    onChange: (event: ChangeEvent<HTMLSelectElement>) => change(name, event.target.value as Draft[K]),
  });
  const heading = rule ? t('rule.form.edit', { name: rule.title || t('rules.ruleN', { id: rule.id }) }) : t('rule.form.new');
  return (
    <form ref={form} className="card form-grid rule-form" onSubmit={submit} noValidate aria-label={heading}>
      <h2>{heading}</h2>
      {general && <Notice kind="error">{problem(save.error)}</Notice>}
      <Field label={t('rule.form.name')} {...textField('title')} />
      <Field label={t('rule.form.watch')} name="scope" error={errors.scope}>
        <select {...choice('scope')}>
          <Options names={translateNames(SCOPES, t)} />
        </select>
      </Field>
      <Field label={t('rule.form.figure')} name="metric" error={errors.metric}>
        <select {...choice('metric')}>
          <Options names={translateNames(METRICS, t)} />
        </select>
      </Field>
      <Field label={t('rule.form.comparison')} name="comparison" error={errors.comparison}>
        <select {...choice('comparison')}>
          <Options names={COMPARISONS} />
        </select>
      </Field>
      <MoneyField
        label={t('rule.form.threshold', { unit: thresholdUnit(draft.metric, t) })}
        hint={t('rule.form.thresholdHint')}
        {...textField('threshold')}
      />
      <WholeNumberField label={t('rule.form.window')} hint={t('rule.form.windowHint')} {...textField('windowDays')} />
      <WholeNumberField label={t('rule.form.minClicks')} hint={t('rule.form.minClicksHint')} {...textField('minClicks')} />
      <Field label={t('rule.form.action')} name="action" error={errors.action}>
        <select {...choice('action')}>
          <Options names={translateNames(ACTIONS, t)} values={actionsFor(draft.scope)} />
        </select>
      </Field>
      {draft.action === 'set_coefficient' && (
        <Field
          label={t('rule.form.coefficient')}
          inputMode="decimal"
          hint={t('rule.form.coefficientHint')}
          {...textField('coef')}
        />
      )}
      <label className="check">
        <input type="checkbox" checked={draft.enabled} onChange={(event) => change('enabled', event.target.checked)} />
        {t('rule.form.onSchedule')}
      </label>
      <FormActions submit={rule ? t('rule.form.save') : t('rule.form.create')} pending={save.isPending} onCancel={onCancel} />
    </form>
  );
}
