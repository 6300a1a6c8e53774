/** The largest value of PostgreSQL's `integer`: every id column and every count column. */
export const INT4_MAX = 2_147_483_647;
export const INT4_MIN = -2_147_483_648;

/** Whether a value of an input that may have failed its schema is an id: a positive int4. */
export const isId = (value: unknown): value is number =>
  typeof value === 'number' && Number.isInteger(value) && value >= 1 && value <= INT4_MAX;
