import type { PostgresPool, PostgresPoolClient } from 'kysely';
import { wrapPoolClients } from './pool-wrapper.ts';

/** What a column of an array parameter may hold: SQL NULL for null and undefined. */
export type ArrayElement = string | number | null | undefined;

const QUOTED_SPECIALS = /[\\"]/;
const QUOTED_SPECIALS_ALL = /[\\"]/g;

/**
 * A column of values as one PostgreSQL array parameter, in the array's text form (`{1,"a",NULL}`).
 * Numbers are written as they are, every string is quoted (so an empty string or the word NULL
 * stay strings) with `\` and `"` escaped, and null and undefined are NULL.
 */
export function arrayParameter(values: readonly ArrayElement[]): string {
  let text = '{';
  for (let index = 0; index < values.length; index += 1) {
    if (index > 0) text += ',';
    const value = values[index];
    if (value === null || value === undefined) text += 'NULL';
    else if (typeof value === 'number') text += String(value);
    else text += `"${QUOTED_SPECIALS.test(value) ? value.replace(QUOTED_SPECIALS_ALL, '\\$&') : value}"`;
  }
  return `${text}}`;
}

/** An array parameter arrayParameter can write: every element a string, a number, null or undefined. */
function isFlatColumn(value: unknown): value is ArrayElement[] {
  if (!Array.isArray(value)) return false;
  for (const element of value) {
    const type = typeof element;
    if (element !== null && type !== 'string' && type !== 'number' && type !== 'undefined') return false;
  }
  return true;
}

/**
 * A pool whose connections send every flat array parameter (strings, numbers, nulls) in the
 * array's text form, written by arrayParameter in one pass. node-postgres writes a JavaScript array
 * in that form itself, but element by element (each one prepared, quoted and escaped by two regular
 * expressions, numbers too); the batch statements of click acceptance and settlement pass tens of
 * columns of hundreds of values each, and that conversion was 11 % of the billed-click load's CPU
 * profile (docs/performance.md). The statement casts the parameter (`$1::integer[]`) as before;
 * arrays of anything else (dates, buffers, nested arrays) are left to the driver.
 */
export function arrayTextPool(pool: PostgresPool): PostgresPool {
  return wrapPoolClients(pool, (client) => {
    const query = client.query.bind(client) as (text: unknown, values?: readonly unknown[]) => Promise<unknown>;
    return {
      get processID() {
        return (client as { processID?: number }).processID;
      },
      query: (text: unknown, values?: readonly unknown[]) =>
        query(
          text,
          values?.map((value) => (isFlatColumn(value) ? arrayParameter(value) : value)),
        ),
      release: (...args: unknown[]) => (client.release as (...rest: unknown[]) => void)(...args),
    } as unknown as PostgresPoolClient;
  });
}
