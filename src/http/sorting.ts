import { Type } from '@sinclair/typebox';
import { TEXT_PATTERN } from './input-types.ts';

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
