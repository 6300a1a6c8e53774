/**
 * How a list is asked for, apart from HTTP: the order (checked by the route's `sort` schema,
 * src/http/sorting.ts) and the search text its repository looks for.
 */

/** The order a list is asked for: one of its sortable fields, ascending or (`-field`) descending. */
export interface SortOrder<Field extends string> {
  field: Field;
  descending: boolean;
}

/** The order `sort` asks for (checked by its schema), or the fallback. */
export function readSort<Field extends string>(value: string | undefined, fallback: SortOrder<Field>): SortOrder<Field> {
  if (value === undefined || value === '') return fallback;
  const descending = value.startsWith('-');
  return { field: (descending ? value.slice(1) : value) as Field, descending };
}

/** A LIKE pattern that matches `text` anywhere, its own `%`, `_` and `\` taken literally. */
export const containsPattern = (text: string): string => `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
