import { type StringOptions, Type } from '@sinclair/typebox';
import { MAX_MONEY_UNITS } from '../money.ts';
import { INT4_MAX, INT4_MIN } from '../shared/ids.ts';

/**
 * What an input value may be, decided once so that nothing the schemas accept is refused by the
 * database: ids fit the `integer` (int4) columns, page numbers keep the row offset far from any
 * limit, counts and amounts stay safe integers in micro-units, and texts are strings PostgreSQL
 * can store (no NUL) and that are valid UTF-16 (no unpaired surrogate).
 *
 * Route schemas use these builders; `boundInputSchemas` applies the same bounds to any input
 * schema that does not (a route added later, a shape from a library), so no route can differ.
 */

/** Page numbers stop here: a million pages of at most 100 items is an offset of 10^8 rows. */
export const MAX_PAGE = 1_000_000;

/**
 * A text may hold any Unicode character except NUL (PostgreSQL's text refuses it) and unpaired
 * surrogates (not Unicode; refused by PostgreSQL's UTF-8 encoding). Ajv compiles patterns with
 * the `u` flag, so a well-formed surrogate pair is one code point outside the refused range.
 */
export const TEXT_PATTERN = '^[^\\u0000\\uD800-\\uDFFF]*$';

/** An object's id: a positive int4. */
export const Id = (description: string) => Type.Integer({ minimum: 1, maximum: INT4_MAX, description });

/** A count or other whole number, bounded by default to what an int4 column holds. */
export const Count = (description: string, bounds: { minimum?: number; maximum?: number } = {}) =>
  Type.Integer({ minimum: bounds.minimum ?? 0, maximum: bounds.maximum ?? INT4_MAX, description });

/** A page number, from 1. */
export const PageNumber = (description: string) => Type.Integer({ minimum: 1, maximum: MAX_PAGE, description });

/**
 * An amount of money: a number (or decimal string, no exponent) of at most MAX_MONEY_UNITS, so
 * its micro-units are exact in a JavaScript number and in a bigint column. Narrower bounds apply
 * to the number form; the service checks a decimal string's amount (and the 4 fraction digits).
 */
export const Money = (description: string, bounds: { minimum?: number; exclusiveMinimum?: number; maximum?: number } = {}) =>
  Type.Union(
    [
      Type.Number({
        minimum: bounds.exclusiveMinimum === undefined ? (bounds.minimum ?? -MAX_MONEY_UNITS) : undefined,
        exclusiveMinimum: bounds.exclusiveMinimum,
        maximum: bounds.maximum ?? MAX_MONEY_UNITS,
      }),
      Type.String({ pattern: '^-?\\d{1,10}(\\.\\d{1,12})?$' }),
    ],
    { description },
  );

/** A text field: any string without NUL or unpaired surrogates, with the bounds given. */
export const Text = (description: string, options: Omit<StringOptions, 'description'> = {}) =>
  Type.String({ pattern: TEXT_PATTERN, ...options, description });

interface InputSchema {
  type?: string | string[];
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  pattern?: string;
  enum?: unknown[];
  const?: unknown;
  anyOf?: InputSchema[];
  oneOf?: InputSchema[];
  allOf?: InputSchema[];
  properties?: Record<string, InputSchema>;
  items?: InputSchema | InputSchema[];
  additionalProperties?: boolean | InputSchema;
}

/**
 * Gives every number, integer and string of an input schema the bounds above where it declares
 * none: integers stay within int4, numbers within ±MAX_MONEY_UNITS, strings refuse NUL and
 * unpaired surrogates (a string with its own pattern or enum already says what it accepts).
 * Returns a copy: schema objects may be shared with response schemas.
 */
export function boundInputSchema<T>(schema: T): T {
  const copy = structuredClone(schema) as InputSchema;
  bound(copy);
  return copy as T;
}

function bound(schema: InputSchema): void {
  for (const type of [schema.type].flat()) {
    if (type === 'integer') {
      if (schema.maximum === undefined && schema.exclusiveMaximum === undefined) schema.maximum = INT4_MAX;
      if (schema.minimum === undefined && schema.exclusiveMinimum === undefined) schema.minimum = INT4_MIN;
    } else if (type === 'number') {
      if (schema.maximum === undefined && schema.exclusiveMaximum === undefined) schema.maximum = MAX_MONEY_UNITS;
      if (schema.minimum === undefined && schema.exclusiveMinimum === undefined) schema.minimum = -MAX_MONEY_UNITS;
    } else if (type === 'string') {
      if (schema.pattern === undefined && schema.enum === undefined && schema.const === undefined) schema.pattern = TEXT_PATTERN;
    }
  }
  for (const option of [...(schema.anyOf ?? []), ...(schema.oneOf ?? []), ...(schema.allOf ?? [])]) bound(option);
  for (const property of Object.values(schema.properties ?? {})) bound(property);
  for (const item of [schema.items ?? []].flat()) bound(item);
  if (typeof schema.additionalProperties === 'object') bound(schema.additionalProperties);
}

/**
 * Where an input's values come from. `text`: a path, query string, form or XML body, whose values
 * are all strings. `json`: a JSON body, whose values have JSON's types and keep them.
 */
export type InputSource = 'text' | 'json';

/**
 * Turns the strings of a path, query string, form or XML body into the types the schema
 * declares, strictly: only plain decimals become numbers (never `Infinity`, `NaN`, `1e99`, `0x10`
 * or ` 1`), only `true/false/1/0` become booleans, and `null` stays null (never 0 or ""). Anything
 * else is left as it is for validation to refuse by name. This replaces Ajv's own coercion, which
 * accepts all of the above.
 *
 * A JSON body already has types, and they are the client's word: `{"name": 5}` is no name and
 * `{"category_id": "1"}` no id (both 422). The one conversion kept is the platform's: a boolean
 * flag may be written as the integer 0 or 1.
 */
export function coerceInput(schema: InputSchema, value: unknown, source: InputSource = 'text'): unknown {
  if (value === undefined || value === null) return value;
  const options = schema.anyOf ?? schema.oneOf;
  if (options) {
    if (options.some((option) => holdsType(option, value))) return value;
    for (const option of options) {
      const coerced = coerceInput(option, value, source);
      if (coerced !== value) return coerced;
    }
    return value;
  }
  const json = source === 'json';
  switch (Array.isArray(schema.type) ? schema.type[0] : schema.type) {
    case 'integer':
      return !json && typeof value === 'string' && INTEGER_TEXT.test(value) ? Number(value) : value;
    case 'number':
      return !json && typeof value === 'string' && DECIMAL_TEXT.test(value) ? Number(value) : value;
    case 'boolean':
      if (value === 1 || (!json && (value === 'true' || value === '1'))) return true;
      if (value === 0 || (!json && (value === 'false' || value === '0'))) return false;
      return value;
    case 'string':
      if (json) return value;
      return (typeof value === 'number' && Number.isFinite(value)) || typeof value === 'boolean' ? String(value) : value;
    case 'array': {
      if (json && !Array.isArray(value)) return value;
      const items = Array.isArray(value) ? value : [value];
      const itemSchema = Array.isArray(schema.items) ? undefined : schema.items;
      return itemSchema ? items.map((item) => coerceInput(itemSchema, item, source)) : items;
    }
    case 'object':
      if (typeof value === 'object' && !Array.isArray(value) && schema.properties) {
        const target = value as Record<string, unknown>;
        for (const [key, property] of propertiesOf(schema.properties)) {
          if (Object.hasOwn(target, key)) target[key] = coerceInput(property, target[key], source);
        }
      }
      return value;
    default:
      return value;
  }
}

/** A schema's properties as entries, listed once per schema: every request of a route coerces its query with them. */
const propertyLists = new WeakMap<object, [string, InputSchema][]>();

function propertiesOf(properties: Record<string, InputSchema>): [string, InputSchema][] {
  let list = propertyLists.get(properties);
  if (list === undefined) {
    list = Object.entries(properties);
    propertyLists.set(properties, list);
  }
  return list;
}

const INTEGER_TEXT = /^-?\d{1,20}$/;
const DECIMAL_TEXT = /^-?\d{1,20}(\.\d{1,20})?$/;

function holdsType(schema: InputSchema, value: unknown): boolean {
  const types = [schema.type].flat();
  if (typeof value === 'string') return types.includes('string');
  if (typeof value === 'boolean') return types.includes('boolean');
  if (typeof value === 'number') return types.includes('number') || (types.includes('integer') && Number.isInteger(value));
  if (Array.isArray(value)) return types.includes('array');
  return typeof value === 'object' && types.includes('object');
}
