import i18next from 'i18next';
import { useTranslation } from 'react-i18next';
import { setQuery, useLocation } from '../router.tsx';

/** The conversions counted as orders (the API's `targetId`): all, or one goal of the postback. */
export const GOALS = [
  { id: 0, label: 'goal.all', noun: 'goal.allNoun' },
  { id: 1, label: 'goal.purchases', noun: 'goal.purchases' },
  { id: 2, label: 'goal.registrations', noun: 'goal.registrations' },
  { id: 3, label: 'goal.intermediate', noun: 'goal.intermediateNoun' },
] as const;

export type GoalId = (typeof GOALS)[number]['id'];

/** The goal in the page's address (`goal`), all conversions by default. */
export function useGoal(): GoalId {
  const value = Number(useLocation().query.get('goal') ?? 0);
  return GOALS.find((goal) => goal.id === value)?.id ?? 0;
}

/** What the goal's orders are called in a column or tile ("Purchases"). */
export function goalNoun(goal: GoalId): string {
  return i18next.t(GOALS.find((entry) => entry.id === goal)?.noun ?? 'goal.allNoun');
}

/** Which conversions the page's orders, CR and CPO count; kept in the address like the period. */
export function GoalPicker() {
  const { t } = useTranslation();
  const goal = useGoal();
  return (
    <label className="goal">
      <span>{t('goal.label')}</span>
      <select value={goal} onChange={(event) => setQuery({ goal: event.target.value === '0' ? undefined : event.target.value })}>
        {GOALS.map((entry) => (
          <option key={entry.id} value={entry.id}>
            {t(entry.label)}
          </option>
        ))}
      </select>
    </label>
  );
}
