import { useTranslation } from 'react-i18next';
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

export interface DayHours {
  serves: boolean;
  from: number;
  to: number;
}

/**
 * A schedule (hours of the week, 0 = Monday 00:00–01:00) as one range per day. Several ranges on
 * one day (possible through the API) are shown as their outer bounds, and the page says so, since
 * saving here would replace them.
 */
export function toDays(schedule: readonly number[] | undefined): { days: DayHours[]; split: AdvertiserKey[] } {
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

/** The hours of the week the days serve; every hour of every day is no schedule (null: always). */
export function toSchedule(days: readonly DayHours[]): number[] | null {
  const hours = days.flatMap((day, index) =>
    day.serves && day.to > day.from
      ? Array.from({ length: day.to - day.from }, (_, offset) => index * 24 + day.from + offset)
      : [],
  );
  return hours.length === 7 * 24 ? null : hours;
}

/**
 * Why the days cannot be saved, if they cannot: a day that ends before it starts, or no day at
 * all (the API reads an empty schedule as "always", so the page asks to switch the campaign off).
 */
export function useScheduleProblem(days: readonly DayHours[]): string | undefined {
  const { t } = useTranslation('advertiser');
  const backwards = DAYS.filter((_, index) => {
    const day = days[index];
    return day?.serves === true && day.to <= day.from;
  });
  if (backwards.length > 0) return t('delivery.backwards', { days: backwards.map((day) => t(day)).join(', ') });
  return days.every((day) => !day.serves) ? t('delivery.never') : undefined;
}

/** The hours of each weekday the campaign serves, one range a day, usable by keyboard. */
export function WeekHours({
  days,
  split,
  error,
  onChange,
}: {
  days: readonly DayHours[];
  split: readonly AdvertiserKey[];
  error: string | undefined;
  onChange: (days: DayHours[]) => void;
}) {
  const { t } = useTranslation('advertiser');
  const setDay = (index: number, change: Partial<DayHours>) =>
    onChange(days.map((day, at) => (at === index ? { ...day, ...change } : day)));
  return (
    <fieldset className="week">
      <legend>{t('delivery.hours')}</legend>
      {split.length > 0 && (
        <p className="hint">{t('delivery.split', { count: split.length, days: split.map((day) => t(day)).join(', ') })}</p>
      )}
      {DAYS.map((key, index) => {
        const name = t(key);
        const day = days[index] ?? { serves: false, from: 0, to: 24 };
        return (
          <div className="week-day" key={key}>
            <label className="week-serves">
              <input type="checkbox" checked={day.serves} onChange={(event) => setDay(index, { serves: event.target.checked })} />
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
      {error && (
        <p className="error" id="schedule-error">
          {error}
        </p>
      )}
    </fieldset>
  );
}
