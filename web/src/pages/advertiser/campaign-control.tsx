import { useMutation } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { api, data, problem, useFieldErrors } from '../../api.ts';
import { Field, Notice } from '../../components/controls.tsx';
import { currentPlatform } from '../../format.ts';
import type { AdvertiserKey } from './advertiser-data.ts';

/** Families by their product names, the same in every language; a catalogue key where words describe. */
type FamilyName = { name: string } | { key: AdvertiserKey };
const OS: readonly (readonly [string, FamilyName])[] = [
  ['windows', { name: 'Windows' }],
  ['macos', { name: 'macOS' }],
  ['ios', { key: 'control.os.ios' }],
  ['android', { name: 'Android' }],
  ['linux', { name: 'Linux' }],
  ['chromeos', { name: 'ChromeOS' }],
  ['other', { key: 'control.os.other' }],
];
const BROWSERS: readonly (readonly [string, FamilyName])[] = [
  ['chrome', { name: 'Chrome' }],
  ['safari', { name: 'Safari' }],
  ['firefox', { name: 'Firefox' }],
  ['edge', { name: 'Edge' }],
  ['opera', { name: 'Opera' }],
  ['samsung', { name: 'Samsung Internet' }],
  ['yandex', { name: 'Yandex' }],
  ['other', { key: 'control.browsers.other' }],
];

export interface ControlFields {
  startsAt?: string;
  endsAt?: string;
  totalBudget?: number;
  pacing?: 'even';
  os?: string[];
  browsers?: string[];
  siteAllow?: (number | string)[];
  siteBlock?: (number | string)[];
}

/** An instant as the wall time of `timeZone`, as a datetime-local input writes it (YYYY-MM-DDTHH:mm). */
function wallTime(iso: string | undefined, timeZone: string): string {
  if (iso === undefined) return '';
  const parts: Record<string, string> = {};
  const format = new Intl.DateTimeFormat('en-CA', {
    timeZone,
    hourCycle: 'h23',
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
  });
  for (const part of format.formatToParts(new Date(iso))) parts[part.type] = part.value;
  return `${parts.year}-${parts.month}-${parts.day}T${parts.hour}:${parts.minute}`;
}

/** A site list as typed: ids and domains separated by commas, spaces or lines. */
function siteList(text: string): (number | string)[] {
  return text
    .split(/[\s,]+/)
    .filter((entry) => entry !== '')
    .map((entry) => (/^\d+$/.test(entry) ? Number(entry) : entry));
}

/**
 * Flight dates, lifetime budget, pacing, operating systems, browsers and site lists of a campaign
 * (docs/advertiser-campaigns.md). Dates are on the campaign's clock (its time zone, else the
 * platform's); only families are offered here (major versions go through the API).
 */
export function CampaignControl({
  campaignId,
  timeZone,
  control,
  onSaved,
}: {
  campaignId: number;
  timeZone: string | undefined;
  control: ControlFields;
  onSaved: () => void;
}) {
  const { t } = useTranslation('advertiser');
  const zone = timeZone ?? currentPlatform().timeZone;
  const [form, setForm] = useState({
    startsAt: wallTime(control.startsAt, zone),
    endsAt: wallTime(control.endsAt, zone),
    totalBudget: control.totalBudget === undefined ? '' : String(control.totalBudget),
    pacing: control.pacing ?? 'asap',
    os: (control.os ?? []).filter((target) => !target.includes(':')),
    browsers: (control.browsers ?? []).filter((target) => !target.includes(':')),
    siteAllow: (control.siteAllow ?? []).join(', '),
    siteBlock: (control.siteBlock ?? []).join(', '),
  });
  const [saved, setSaved] = useState(false);
  const save = useMutation({
    mutationFn: () =>
      data(
        api.PUT('/api/advertiser/campaigns/{id}', {
          params: { path: { id: campaignId } },
          body: {
            startsAt: form.startsAt === '' ? null : form.startsAt,
            endsAt: form.endsAt === '' ? null : form.endsAt,
            totalBudget: form.totalBudget.trim() === '' ? 0 : form.totalBudget.trim(),
            pacing: form.pacing as 'asap' | 'even',
            os: form.os,
            browsers: form.browsers,
            siteAllow: siteList(form.siteAllow),
            siteBlock: siteList(form.siteBlock),
          },
        }),
      ),
    onSuccess: () => {
      setSaved(true);
      onSaved();
    },
  });
  const { errors, general, edited, submitted } = useFieldErrors(save.error);
  const change = (name: keyof typeof form, value: string | string[]) => {
    setForm({ ...form, [name]: value });
    setSaved(false);
    edited(name);
  };
  const toggle = (name: 'os' | 'browsers', family: string, on: boolean) =>
    change(name, on ? [...form[name], family] : form[name].filter((chosen) => chosen !== family));
  const submit = (event: FormEvent) => {
    event.preventDefault();
    submitted();
    save.mutate();
  };
  const families = (name: 'os' | 'browsers', legend: string, options: readonly (readonly [string, FamilyName])[]) => (
    <fieldset className="families" aria-describedby={errors[name] ? `${name}-error` : undefined}>
      <legend>{legend}</legend>
      <p className="hint">{t('control.noneTicked')}</p>
      {options.map(([family, text]) => (
        <label className="check" key={family}>
          <input
            type="checkbox"
            checked={form[name].includes(family)}
            onChange={(event) => toggle(name, family, event.target.checked)}
          />
          {'key' in text ? t(text.key) : text.name}
        </label>
      ))}
      {errors[name] && (
        <p className="error" id={`${name}-error`}>
          {errors[name]}
        </p>
      )}
    </fieldset>
  );
  return (
    <form className="card control" onSubmit={submit} noValidate aria-labelledby="control-title">
      <h2 id="control-title">{t('control.title')}</h2>
      {general && <Notice kind="error">{problem(save.error)}</Notice>}
      {saved && !save.isPending && <Notice kind="ok">{t('delivery.saved')}</Notice>}
      <div className="inline-form">
        <Field
          label={t('control.starts')}
          name="startsAt"
          type="datetime-local"
          hint={t('control.startsHint', { zone })}
          value={form.startsAt}
          error={errors.startsAt}
          onChange={(event) => change('startsAt', event.target.value)}
        />
        <Field
          label={t('control.ends')}
          name="endsAt"
          type="datetime-local"
          hint={t('control.endsHint')}
          value={form.endsAt}
          error={errors.endsAt}
          onChange={(event) => change('endsAt', event.target.value)}
        />
        <Field
          label={t('control.budget')}
          name="totalBudget"
          inputMode="decimal"
          hint={t('control.budgetHint')}
          value={form.totalBudget}
          error={errors.totalBudget}
          onChange={(event) => change('totalBudget', event.target.value)}
        />
        <Field label={t('control.pacing')} name="pacing" error={errors.pacing}>
          <select id="field-pacing" value={form.pacing} onChange={(event) => change('pacing', event.target.value)}>
            <option value="asap">{t('control.pacing.asap')}</option>
            <option value="even">{t('control.pacing.even')}</option>
          </select>
        </Field>
      </div>
      <div className="inline-form">
        {families('os', t('control.os'), OS)}
        {families('browsers', t('control.browsers'), BROWSERS)}
      </div>
      <div className="inline-form">
        <Field
          label={t('control.siteAllow')}
          name="siteAllow"
          hint={t('control.siteAllowHint')}
          value={form.siteAllow}
          error={errors.siteAllow}
          onChange={(event) => change('siteAllow', event.target.value)}
        />
        <Field
          label={t('control.siteBlock')}
          name="siteBlock"
          hint={t('control.siteBlockHint')}
          value={form.siteBlock}
          error={errors.siteBlock}
          onChange={(event) => change('siteBlock', event.target.value)}
        />
      </div>
      <div className="actions">
        <button type="submit" className="primary" disabled={save.isPending}>
          {save.isPending ? t('action.saving') : t('action.save')}
        </button>
      </div>
    </form>
  );
}
