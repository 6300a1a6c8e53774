import { useMutation } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { api, data, problem, useFieldErrors } from '../../api.ts';
import { Field, Notice } from '../../components/controls.tsx';
import { amountInput, currentPlatform, parseAmount } from '../../format.ts';
import type { AdvertiserKey } from './advertiser-data.ts';

/** The days of the schedule's week, Monday first, as catalogue keys. */
const DAYS: AdvertiserKey[] = [
  'day.monday',
  'day.tuesday',
  'day.wednesday',
  'day.thursday',
  'day.friday',
  'day.saturday',
  'day.sunday',
];
const HOURS = Array.from({ length: 25 }, (_, hour) => hour);
const clock = (hour: number) => `${String(hour).padStart(2, '0')}:00`;

interface DayHours {
  serves: boolean;
  from: number;
  to: number;
}

/**
 * A schedule (hours of the week, 0 = Monday 00:00–01:00) as one range per day. Several ranges on
 * one day (possible through the API) are shown as their outer bounds, and the page says so, since
 * saving here would replace them.
 */
function toDays(schedule: readonly number[] | undefined): { days: DayHours[]; split: AdvertiserKey[] } {
  const days: DayHours[] = [];
  const split: AdvertiserKey[] = [];
  DAYS.forEach((name, day) => {
    const hours = (schedule ?? []).filter((hour) => Math.floor(hour / 24) === day).map((hour) => hour % 24);
    if (schedule === undefined) days.push({ serves: true, from: 0, to: 24 });
    else if (hours.length === 0) days.push({ serves: false, from: 8, to: 20 });
    else {
      const from = Math.min(...hours);
      const to = Math.max(...hours) + 1;
      if (to - from !== hours.length) split.push(name);
      days.push({ serves: true, from, to });
    }
  });
  return { days, split };
}

function toSchedule(days: readonly DayHours[]): number[] {
  return days.flatMap((day, index) =>
    day.serves && day.to > day.from
      ? Array.from({ length: day.to - day.from }, (_, offset) => index * 24 + day.from + offset)
      : [],
  );
}

/**
 * When and how often the campaign's ads show: a daily cap of views per visitor, and the hours of
 * each weekday (on the campaign's clock) it serves. Every hour of every day sends no schedule, so
 * the API stores none (the campaign serves always); an empty cap is no cap.
 */
export function CampaignDelivery({
  campaignId,
  frequencyCap,
  schedule,
  timeZone,
  onSaved,
}: {
  campaignId: number;
  frequencyCap: number | undefined;
  schedule: number[] | undefined;
  timeZone: string | undefined;
  onSaved: () => void;
}) {
  const { t } = useTranslation('advertiser');
  const initial = toDays(schedule);
  const [cap, setCap] = useState(frequencyCap === undefined ? '' : String(frequencyCap));
  const [days, setDays] = useState(initial.days);
  const [zone, setZone] = useState(timeZone ?? '');
  const [saved, setSaved] = useState(false);
  const save = useMutation({
    mutationFn: () => {
      const hours = toSchedule(days);
      return data(
        api.PUT('/api/advertiser/campaigns/{id}', {
          params: { path: { id: campaignId } },
          body: {
            frequencyCap: cap.trim() === '' ? 0 : Number(cap),
            schedule: hours.length === 7 * 24 ? null : hours,
            timeZone: zone.trim() === '' ? null : zone.trim(),
          },
        }),
      );
    },
    onSuccess: () => {
      setSaved(true);
      onSaved();
    },
  });
  const { errors, general, edited, submitted } = useFieldErrors(save.error);
  const setDay = (index: number, change: Partial<DayHours>) => {
    setDays(days.map((day, at) => (at === index ? { ...day, ...change } : day)));
    setSaved(false);
    edited('schedule');
  };
  const backwards = DAYS.filter((_, index) => {
    const day = days[index];
    return day?.serves === true && day.to <= day.from;
  });
  // The API reads an empty schedule as "every hour", so "no hour at all" cannot be sent as one.
  const never = days.every((day) => !day.serves);
  const [checked, setChecked] = useState(false);
  const scheduleError =
    backwards.length > 0
      ? t('delivery.backwards', { days: backwards.map((day) => t(day)).join(', ') })
      : never
        ? t('delivery.never')
        : undefined;
  const submit = (event: FormEvent) => {
    event.preventDefault();
    submitted();
    setChecked(true);
    if (scheduleError === undefined) save.mutate();
  };
  return (
    <form className="card delivery" onSubmit={submit} noValidate aria-labelledby="delivery-title">
      <h2 id="delivery-title">{t('delivery.title')}</h2>
      {general && <Notice kind="error">{problem(save.error)}</Notice>}
      {saved && !save.isPending && <Notice kind="ok">{t('delivery.saved')}</Notice>}
      <div className="inline-form">
        <Field
          label={t('delivery.cap')}
          name="frequencyCap"
          inputMode="numeric"
          hint={t('delivery.capHint')}
          value={cap}
          error={errors.frequencyCap}
          onChange={(event) => {
            setCap(event.target.value);
            setSaved(false);
            edited('frequencyCap');
          }}
        />
        <Field
          label={t('delivery.zone')}
          name="timeZone"
          hint={t('delivery.zoneHint', { zone: currentPlatform().timeZone })}
          value={zone}
          error={errors.timeZone}
          onChange={(event) => {
            setZone(event.target.value);
            setSaved(false);
            edited('timeZone');
          }}
        />
      </div>
      <fieldset className="week">
        <legend>{t('delivery.hours')}</legend>
        {initial.split.length > 0 && (
          <p className="hint">
            {t('delivery.split', {
              count: initial.split.length,
              days: initial.split.map((day) => t(day)).join(', '),
            })}
          </p>
        )}
        {DAYS.map((key, index) => {
          const name = t(key);
          const day = days[index] ?? { serves: false, from: 0, to: 24 };
          return (
            <div className="week-day" key={key}>
              <label className="week-serves">
                <input
                  type="checkbox"
                  checked={day.serves}
                  onChange={(event) => setDay(index, { serves: event.target.checked })}
                />
                {name}
              </label>
              <select
                aria-label={t('delivery.from', { day: name })}
                value={day.from}
                disabled={!day.serves}
                onChange={(event) => setDay(index, { from: Number(event.target.value) })}
              >
                {HOURS.slice(0, 24).map((hour) => (
                  <option key={hour} value={hour}>
                    {clock(hour)}
                  </option>
                ))}
              </select>
              <span aria-hidden="true">–</span>
              <select
                aria-label={t('delivery.until', { day: name })}
                value={day.to}
                disabled={!day.serves}
                onChange={(event) => setDay(index, { to: Number(event.target.value) })}
              >
                {HOURS.slice(1).map((hour) => (
                  <option key={hour} value={hour}>
                    {clock(hour)}
                  </option>
                ))}
              </select>
            </div>
          );
        })}
        {((checked && scheduleError) || errors.schedule) && (
          <p className="error" id="schedule-error">
            {(checked && scheduleError) || errors.schedule}
          </p>
        )}
      </fieldset>
      <div className="actions">
        <button type="submit" className="primary" disabled={save.isPending}>
          {save.isPending ? t('action.saving') : t('action.save')}
        </button>
      </div>
    </form>
  );
}

/**
 * The campaign's daily limits, editable after creation. They apply at once and never send the
 * campaign back to moderation (the API's `PUT /advertiser/campaigns/{id}`); the form says so.
 */
export function CampaignLimits({
  campaignId,
  maxmoney,
  maxclicks,
  onSaved,
}: {
  campaignId: number;
  maxmoney: number;
  maxclicks: number;
  onSaved: () => void;
}) {
  const { t } = useTranslation('advertiser');
  const [budget, setBudget] = useState(maxmoney > 0 ? amountInput(maxmoney) : '');
  const [clicks, setClicks] = useState(maxclicks > 0 ? String(maxclicks) : '');
  const [local, setLocal] = useState<string | null>(null);
  const [saved, setSaved] = useState(false);
  const save = useMutation({
    mutationFn: (amount: string) =>
      data(
        api.PUT('/api/advertiser/campaigns/{id}', {
          params: { path: { id: campaignId } },
          body: { maxmoney: amount, maxclicks: clicks.trim() === '' ? 0 : Number(clicks) },
        }),
      ),
    onSuccess: () => {
      setSaved(true);
      onSaved();
    },
  });
  const { errors, general, edited, submitted } = useFieldErrors(save.error);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    submitted();
    setSaved(false);
    // Empty is no limit; anything else is money, read by the reader's language (parseAmount).
    const parsed = budget.trim() === '' ? ({ ok: true, amount: '0' } as const) : parseAmount(budget);
    if (!parsed.ok) {
      setLocal(parsed.message);
      return;
    }
    setLocal(null);
    save.mutate(parsed.amount);
  };
  return (
    <form className="card delivery" onSubmit={submit} noValidate aria-labelledby="limits-title">
      <h2 id="limits-title">{t('limits.title')}</h2>
      <p className="hint">{t('limits.hint')}</p>
      {general && <Notice kind="error">{problem(save.error)}</Notice>}
      {saved && !save.isPending && <Notice kind="ok">{t('action.saved')}</Notice>}
      <div className="inline-form">
        <Field
          label={t('campaigns.form.dailySpend')}
          name="maxmoney"
          inputMode="decimal"
          autoComplete="off"
          maxLength={20}
          hint={t('limits.noLimit')}
          value={budget}
          error={local ?? errors.maxmoney}
          onChange={(event) => {
            setBudget(event.target.value);
            setLocal(null);
            setSaved(false);
            edited('maxmoney');
          }}
        />
        <Field
          label={t('campaigns.form.dailyClicks')}
          name="maxclicks"
          inputMode="numeric"
          pattern="[0-9]*"
          maxLength={10}
          hint={t('limits.noLimit')}
          value={clicks}
          error={errors.maxclicks}
          onChange={(event) => {
            setClicks(event.target.value);
            setSaved(false);
            edited('maxclicks');
          }}
        />
      </div>
      <div className="actions">
        <button type="submit" className="primary" disabled={save.isPending}>
          {t('limits.save')}
        </button>
      </div>
    </form>
  );
}
