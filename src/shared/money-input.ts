import { type FieldError, invalidField } from '../errors.ts';
import { MICROS_PER_UNIT, parseMoney } from '../money.ts';

/** Which amounts a money field accepts besides being a plain decimal with at most 4 fraction digits. */
export interface MoneyRule {
  sign?: 'non-negative' | 'positive' | 'non-zero';
  /** The largest amount, in units. */
  max?: number;
}

const ACCEPTS: Record<NonNullable<MoneyRule['sign']>, (micros: number) => boolean> = {
  'non-negative': (micros) => micros >= 0,
  positive: (micros) => micros > 0,
  'non-zero': (micros) => micros !== 0,
};

/** The amount of a Money field in micros, or the field's 422 entry. */
export function checkMoney(value: unknown, field: string, rule: MoneyRule = {}): number | FieldError {
  const micros = parseMoney(value);
  const fits =
    micros !== undefined &&
    (rule.sign === undefined || ACCEPTS[rule.sign](micros)) &&
    (rule.max === undefined || micros <= rule.max * MICROS_PER_UNIT);
  if (fits) return micros;
  const amount = rule.sign === undefined ? 'an amount' : `a ${rule.sign} amount`;
  const limit = rule.max === undefined ? '' : ` of at most ${rule.max}`;
  return { field, message: `Must be ${amount}${limit} with at most 4 fraction digits.` };
}

/** The amount of a Money field in micros; 422 naming the field when it is not one. */
export function readMoney(value: unknown, field: string, rule: MoneyRule = {}): number {
  const checked = checkMoney(value, field, rule);
  if (typeof checked !== 'number') throw invalidField(checked.field, checked.message);
  return checked;
}
