import { useMutation } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { api, data, problem, useFieldErrors } from '../../api.ts';
import { Field, Notice } from '../../components/controls.tsx';
import { currentPlatform } from '../../format.ts';

const OS = [
  ['windows', 'Windows'],
  ['macos', 'macOS'],
  ['ios', 'iOS and iPadOS'],
  ['android', 'Android'],
  ['linux', 'Linux'],
  ['chromeos', 'ChromeOS'],
  ['other', 'Other systems'],
] as const;
const BROWSERS = [
  ['chrome', 'Chrome'],
  ['safari', 'Safari'],
  ['firefox', 'Firefox'],
  ['edge', 'Edge'],
  ['opera', 'Opera'],
  ['samsung', 'Samsung Internet'],
  ['yandex', 'Yandex'],
  ['other', 'Other browsers'],
] as const;

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
  const families = (name: 'os' | 'browsers', legend: string, options: readonly (readonly [string, string])[]) => (
    <fieldset className="families" aria-describedby={errors[name] ? `${name}-error` : undefined}>
      <legend>{legend}</legend>
      <p className="hint">None ticked: every one.</p>
      {options.map(([family, text]) => (
        <label className="check" key={family}>
          <input
            type="checkbox"
            checked={form[name].includes(family)}
            onChange={(event) => toggle(name, family, event.target.checked)}
          />
          {text}
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
      <h2 id="control-title">Flight, budget and targets</h2>
      {general && <Notice kind="error">{problem(save.error)}</Notice>}
      {saved && !save.isPending && <Notice kind="ok">Saved. Serving applies it within seconds.</Notice>}
      <div className="inline-form">
        <Field
          label="Starts"
          name="startsAt"
          type="datetime-local"
          hint={`On the campaign’s clock (${zone}). Empty: at once.`}
          value={form.startsAt}
          error={errors.startsAt}
          onChange={(event) => change('startsAt', event.target.value)}
        />
        <Field
          label="Ends"
          name="endsAt"
          type="datetime-local"
          hint="Empty: never."
          value={form.endsAt}
          error={errors.endsAt}
          onChange={(event) => change('endsAt', event.target.value)}
        />
        <Field
          label="Lifetime budget"
          name="totalBudget"
          inputMode="decimal"
          hint="Empty: none."
          value={form.totalBudget}
          error={errors.totalBudget}
          onChange={(event) => change('totalBudget', event.target.value)}
        />
        <Field label="Pacing" name="pacing" error={errors.pacing}>
          <select id="field-pacing" value={form.pacing} onChange={(event) => change('pacing', event.target.value)}>
            <option value="asap">As fast as possible</option>
            <option value="even">Evenly across the day</option>
          </select>
        </Field>
      </div>
      <div className="inline-form">
        {families('os', 'Operating systems', OS)}
        {families('browsers', 'Browsers', BROWSERS)}
      </div>
      <div className="inline-form">
        <Field
          label="Only on these sites"
          name="siteAllow"
          hint="Site ids or domains, comma-separated. Empty: every site."
          value={form.siteAllow}
          error={errors.siteAllow}
          onChange={(event) => change('siteAllow', event.target.value)}
        />
        <Field
          label="Never on these sites"
          name="siteBlock"
          hint="Site ids or domains, comma-separated."
          value={form.siteBlock}
          error={errors.siteBlock}
          onChange={(event) => change('siteBlock', event.target.value)}
        />
      </div>
      <div className="actions">
        <button type="submit" className="primary" disabled={save.isPending}>
          {save.isPending ? 'Saving…' : 'Save'}
        </button>
      </div>
    </form>
  );
}
