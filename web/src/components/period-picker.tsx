import { addDays, today } from '../format.ts';
import { setQuery, useLocation } from '../router.tsx';

export interface Period {
  from: string;
  to: string;
}

const PRESETS: { id: string; label: string; period: () => Period }[] = [
  { id: 'today', label: 'Today', period: () => ({ from: today(), to: today() }) },
  { id: 'yesterday', label: 'Yesterday', period: () => ({ from: addDays(today(), -1), to: addDays(today(), -1) }) },
  { id: '7d', label: 'Last 7 days', period: () => ({ from: addDays(today(), -6), to: today() }) },
  { id: '30d', label: 'Last 30 days', period: () => ({ from: addDays(today(), -29), to: today() }) },
  { id: 'month', label: 'This month', period: () => ({ from: `${today().slice(0, 8)}01`, to: today() }) },
  { id: '365d', label: 'Last 365 days', period: () => ({ from: addDays(today(), -364), to: today() }) },
];

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
  const period = usePeriod();
  const preset = PRESETS.find((entry) => {
    const candidate = entry.period();
    return candidate.from === period.from && candidate.to === period.to;
  });
  return (
    <fieldset className="period">
      <legend className="visually-hidden">Period</legend>
      <label>
        <span className="visually-hidden">Preset period</span>
        <select
          value={preset?.id ?? 'custom'}
          onChange={(event) => {
            const chosen = PRESETS.find((entry) => entry.id === event.target.value);
            if (chosen) setQuery({ ...chosen.period() });
          }}
        >
          {PRESETS.map((entry) => (
            <option key={entry.id} value={entry.id}>
              {entry.label}
            </option>
          ))}
          <option value="custom" disabled>
            Custom
          </option>
        </select>
      </label>
      <label>
        <span>From</span>
        <input
          type="date"
          value={period.from}
          max={period.to}
          onChange={(event) => DAY.test(event.target.value) && setQuery({ from: event.target.value, to: period.to })}
        />
      </label>
      <label>
        <span>To</span>
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
