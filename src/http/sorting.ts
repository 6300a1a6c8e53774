import { Type } from '@sinclair/typebox';
import { TEXT_PATTERN } from './input-types.ts';

/** The order a list is asked for: one of its sortable fields, ascending or (`-field`) descending. */
export interface SortOrder<Field extends string> {
  field: Field;
  descending: boolean;
}

/**
 * The `sort` parameter of a list (docs/api-conventions.md#sorting-and-search): a field name, or
 * the name after `-` for descending order; anything else is a 422 from the schema.
 */
export const sortParameter = (fields: readonly string[], fallback: string) =>
  Type.Optional(
    Type.String({
      pattern: `^-?(${fields.join('|')})$`,
      description: `Order: ${fields.map((field) => `\`${field}\``).join(', ')}; \`-\` before a field for descending (default \`${fallback}\`).`,
    }),
  );

/** The `q` parameter of a list: words to look for, case-insensitively, in its names. */
export const searchParameter = (where: string) =>
  Type.Optional(
    Type.String({
      pattern: TEXT_PATTERN,
      maxLength: 255,
      description: `Only items whose ${where} contains this text, in any letter case.`,
    }),
  );

/** The order `sort` asks for (checked by its schema), or the fallback. */
export function readSort<Field extends string>(value: string | undefined, fallback: SortOrder<Field>): SortOrder<Field> {
  if (value === undefined || value === '') return fallback;
  const descending = value.startsWith('-');
  return { field: (descending ? value.slice(1) : value) as Field, descending };
}

/** A LIKE pattern that matches `text` anywhere, its own `%`, `_` and `\` taken literally. */
export const containsPattern = (text: string): string => `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
