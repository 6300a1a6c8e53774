import i18next from 'i18next';
import { useTranslation } from 'react-i18next';
import { addDays, percent } from '../format.ts';
import { setQuery, useLocation } from '../router.tsx';
import type { Period } from './period-picker.tsx';

/** Whether the page compares its period with the one before it (`compare=1` in its address). */
export function useComparing(): boolean {
  return useLocation().query.get('compare') === '1';
}

/** The period of the same length right before `period`: 1–7 March before 8–14 March. */
export function previousPeriod(period: Period): Period {
  const length = Math.round((Date.parse(period.to) - Date.parse(period.from)) / 86_400_000) + 1;
  return { from: addDays(period.from, -length), to: addDays(period.from, -1) };
}

/** A figure's change from the previous period, as a tile's note: "+12 % on 1–7 Mar", "was 0". */
export function change(current: number, previous: number | undefined): string | undefined {
  if (previous === undefined) return undefined;
  if (previous === 0) return i18next.t(current === 0 ? 'compare.unchanged' : 'compare.wasZero');
  const ratio = ((current - previous) / Math.abs(previous)) * 100;
  const rounded = Math.round(ratio * 10) / 10;
  return i18next.t('compare.change', { change: `${rounded > 0 ? '+' : ''}${percent(rounded)}` });
}

/** The switch that turns the comparison on and off, kept in the page's address. */
export function CompareToggle() {
  const { t } = useTranslation();
  const comparing = useComparing();
  return (
    <label className="check compare-toggle">
      <input
        type="checkbox"
        checked={comparing}
        onChange={(event) => setQuery({ compare: event.target.checked ? '1' : undefined })}
      />
      {t('compare.toggle')}
    </label>
  );
}
