import { useTranslation } from 'react-i18next';
import { addDays, today } from '../format.ts';
import { setQuery, useLocation } from '../router.tsx';

export interface Period {
  from: string;
  to: string;
}

const PRESETS = [
  { id: 'today', label: 'period.today', period: () => ({ from: today(), to: today() }) },
  { id: 'yesterday', label: 'period.yesterday', period: () => ({ from: addDays(today(), -1), to: addDays(today(), -1) }) },
  { id: '7d', label: 'period.last7', period: () => ({ from: addDays(today(), -6), to: today() }) },
  { id: '30d', label: 'period.last30', period: () => ({ from: addDays(today(), -29), to: today() }) },
  { id: 'month', label: 'period.thisMonth', period: () => ({ from: `${today().slice(0, 8)}01`, to: today() }) },
  { id: '365d', label: 'period.last365', period: () => ({ from: addDays(today(), -364), to: today() }) },
] as const satisfies { id: string; label: string; period: () => Period }[];

const DAY = /^\d{4}-\d{2}-\d{2}$/;

/** The period in the page's address (`from`, `to`), the last 30 days by default. */
export function usePeriod(): Period {
  const { query } = useLocation();
  const from = query.get('from') ?? '';
  const to = query.get('to') ?? '';
  if (DAY.test(from) && DAY.test(to) && from <= to) return { from, to };
  return { from: addDays(today(), -29), to: today() };
}

export function PeriodPicker() {
  const { t } = useTranslation();
  const period = usePeriod();
  const preset = PRESETS.find((entry) => {
    const candidate = entry.period();
    return candidate.from === period.from && candidate.to === period.to;
  });
  return (
    <fieldset className="period">
      <legend className="visually-hidden">{t('period.legend')}</legend>
      <label>
        <span className="visually-hidden">{t('period.preset')}</span>
        <select
          value={preset?.id ?? 'custom'}
          onChange={(event) => {
            const chosen = PRESETS.find((entry) => entry.id === event.target.value);
            if (chosen) setQuery({ ...chosen.period() });
          }}
        >
          {PRESETS.map((entry) => (
            <option key={entry.id} value={entry.id}>
              {t(entry.label)}
            </option>
          ))}
          <option value="custom" disabled>
            {t('period.custom')}
          </option>
        </select>
      </label>
      <label>
        <span>{t('period.from')}</span>
        <input
          type="date"
          value={period.from}
          max={period.to}
          onChange={(event) => DAY.test(event.target.value) && setQuery({ from: event.target.value, to: period.to })}
        />
      </label>
      <label>
        <span>{t('period.to')}</span>
        <input
          type="date"
          value={period.to}
          min={period.from}
          onChange={(event) => DAY.test(event.target.value) && setQuery({ from: period.from, to: event.target.value })}
        />
      </label>
    </fieldset>
  );
}

/** A link to another page of the same figures that keeps the period and the goal being looked at. */
export function keepingView(href: string): string {
  const current = new URLSearchParams(location.search);
  const kept = new URLSearchParams();
  for (const name of ['from', 'to', 'goal']) {
    const value = current.get(name);
    if (value) kept.set(name, value);
  }
  const search = kept.toString();
  return search ? `${href}?${search}` : href;
}
