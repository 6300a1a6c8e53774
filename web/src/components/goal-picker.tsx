import { setQuery, useLocation } from '../router.tsx';

/** The conversions counted as orders (the API's `targetId`): all, or one goal of the postback. */
export const GOALS = [
  { id: 0, label: 'All conversions', noun: 'Conversions' },
  { id: 1, label: 'Purchases', noun: 'Purchases' },
  { id: 2, label: 'Registrations', noun: 'Registrations' },
  { id: 3, label: 'Intermediate goal', noun: 'Intermediate goals' },
] as const;

export type GoalId = (typeof GOALS)[number]['id'];

/** The goal in the page's address (`goal`), all conversions by default. */
export function useGoal(): GoalId {
  const value = Number(useLocation().query.get('goal') ?? 0);
  return GOALS.find((goal) => goal.id === value)?.id ?? 0;
}

/** What the goal's orders are called in a column or tile ("Purchases"). */
export function goalNoun(goal: GoalId): string {
  return GOALS.find((entry) => entry.id === goal)?.noun ?? 'Conversions';
}

/** Which conversions the page's orders, CR and CPO count; kept in the address like the period. */
export function GoalPicker() {
  const goal = useGoal();
  return (
    <label className="goal">
      <span>Goal</span>
      <select value={goal} onChange={(event) => setQuery({ goal: event.target.value === '0' ? undefined : event.target.value })}>
        {GOALS.map((entry) => (
          <option key={entry.id} value={entry.id}>
            {entry.label}
          </option>
        ))}
      </select>
    </label>
  );
}
